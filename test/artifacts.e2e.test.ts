import { randomBytes } from 'node:crypto';
import type { BlobStore, Executor, Store } from '@agentrun/core';
import { PNG_BYTES } from '@agentrun/core/testing';
import { type ReferenceServer, startReferenceServer } from '@agentrun/server';
import { createMemoryBlobStore, createMemoryStore } from '@agentrun/store-memory';
import { createPostgresBlobStore, createPostgresStore } from '@agentrun/store-postgres';
import OzAPI from 'oz-agent-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Artifacts read by both published clients, unchanged (docs/artifacts.md), against the reference
// server on memory and on PostgreSQL: the TypeScript client's RunItem.artifacts and
// `artifact_type` list filter; the Python client's `client.agent.get_artifact(uid)`
// (src/oz_agent_sdk/resources/agent/agent.py, its AgentGetArtifactResponse), sent as that client
// sends it; the file then downloaded through the signed URL as a browser would, without a key.

const PYTHON_VERSION = '0.16.0';
const REPORT = 'hello from the agent\n';

/** An executor that reports a pull request, a plan, a screenshot and a file, then succeeds. */
const reporting: Executor = {
  async execute(_input, context) {
    await context.reportArtifact?.({ type: 'PULL_REQUEST', url: 'https://github.com/acme/app/pull/42', branch: 'fix/login' });
    await context.reportArtifact?.({ type: 'PLAN', title: 'Fix the login', content: '1. reproduce\n2. fix' });
    await context.reportArtifact?.({ type: 'SCREENSHOT', filepath: 'shots/login.png', content: PNG_BYTES, description: 'the login page' });
    await context.reportArtifact?.({
      type: 'FILE',
      filepath: 'out/report.txt',
      content: new TextEncoder().encode(REPORT),
      content_type: 'text/plain',
    });
    return { status: 'succeeded', message: 'Done' };
  },
};

const kinds: { name: string; open(): Promise<{ store: Store; blobs: BlobStore; close(): Promise<void> }> }[] = [
  { name: 'memory', open: async () => ({ store: createMemoryStore(), blobs: createMemoryBlobStore(), close: async () => {} }) },
  {
    name: 'postgres',
    async open() {
      // A schema of its own on the shared server (docs/development.md, "PostgreSQL in tests"), dropped after.
      const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
      const schema = `t_artifacts_e2e_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
      const store = createPostgresStore({ connectionString: url, schema });
      await store.migrate();
      return {
        store,
        blobs: createPostgresBlobStore(store),
        async close() {
          const admin = createPostgresStore({ connectionString: url, listen: false });
          try {
            await admin.db.schema.dropSchema(schema).ifExists().cascade().execute();
          } finally {
            await admin.close();
          }
        },
      };
    },
  },
];

for (const kind of kinds) {
  describe(`artifacts through both published clients: ${kind.name}`, () => {
    let server: ReferenceServer;
    let opened: Awaited<ReturnType<(typeof kinds)[number]['open']>>;
    let client: OzAPI;
    let runId: string;

    beforeAll(async () => {
      opened = await kind.open();
      server = await startReferenceServer({
        port: 0,
        store: opened.store,
        blobs: opened.blobs,
        executor: reporting,
        pollIntervalMs: 20,
        secretKey: randomBytes(32),
      });
      client = new OzAPI({ apiKey: server.apiKey, baseURL: `${server.url}/api/v1`, maxRetries: 0 });
      runId = (await client.agent.run({ prompt: 'Fix the login' })).run_id;
      for (let i = 0; i < 400; i++) {
        if ((await client.agent.runs.retrieve(runId)).state === 'SUCCEEDED') break;
        await new Promise((r) => setTimeout(r, 25));
      }
    });
    afterAll(async () => {
      await server?.close();
      await opened?.close();
    });

    it('the TypeScript client reads RunItem.artifacts and filters its list by artifact_type', async () => {
      const run = await client.agent.runs.retrieve(runId);
      expect(run.state).toBe('SUCCEEDED');
      const [pr, plan, ...rest] = run.artifacts ?? [];
      expect(pr).toEqual({
        artifact_type: 'PULL_REQUEST',
        created_at: expect.any(String),
        data: { url: 'https://github.com/acme/app/pull/42', branch: 'fix/login' },
      });
      expect(plan).toMatchObject({ artifact_type: 'PLAN', data: { document_uid: expect.any(String), title: 'Fix the login' } });
      expect(rest.map((a) => (a as { artifact_type: string }).artifact_type)).toEqual(['SCREENSHOT', 'FILE']);
      const withPr = await client.agent.runs.list({ artifact_type: 'PULL_REQUEST' });
      expect(withPr.runs.map((r) => r.run_id)).toEqual([runId]);
      const withPlan = await client.agent.runs.list({ artifact_type: 'PLAN' });
      expect(withPlan.runs.map((r) => r.run_id)).toEqual([runId]);
    });

    it("the Python client's get_artifact answers its model, and the file downloads through the signed URL without a key", async () => {
      const run = await client.agent.runs.retrieve(runId);
      const file = (run.artifacts ?? []).find((a) => (a as { artifact_type: string }).artifact_type === 'FILE') as unknown as {
        data: { artifact_uid: string };
      };
      // As the Python client sends it (python-client.e2e.test.ts has the full header set).
      const res = await fetch(`${server.url}/api/v1/agent/artifacts/${file.data.artifact_uid}`, {
        headers: {
          Accept: 'application/json',
          'User-Agent': `OzAPI/Python ${PYTHON_VERSION}`,
          'X-Stainless-Lang': 'python',
          'X-Stainless-Package-Version': PYTHON_VERSION,
          Authorization: `Bearer ${server.apiKey}`,
        },
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown> & { data: Record<string, unknown> };
      // FileArtifactResponse: artifact_type, artifact_uid, created_at (datetime), data (FileArtifactResponseData).
      expect(body).toEqual({
        artifact_type: 'FILE',
        artifact_uid: file.data.artifact_uid,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        data: {
          content_type: 'text/plain',
          download_url: expect.stringMatching(/^http:\/\/localhost:\d+\/api\/v1\/artifacts\/.+\/download\?expires=\d+&signature=[\w-]+$/),
          expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          filename: 'report.txt',
          filepath: 'out/report.txt',
          size_bytes: REPORT.length,
        },
      });
      // The reference server's public URL is http://localhost:<port>; the test reaches it on 127.0.0.1.
      const link = new URL(body.data.download_url as string);
      const download = await fetch(`${server.url}${link.pathname}${link.search}`);
      expect(download.status).toBe(200);
      expect(await download.text()).toBe(REPORT);
      expect(download.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''report.txt");
      const signature = link.searchParams.get('signature') as string;
      link.searchParams.set('signature', `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`);
      const tampered = await fetch(`${server.url}${link.pathname}${link.search}`);
      expect(tampered.status).toBe(403);

      const shot = (run.artifacts ?? []).find((a) => (a as { artifact_type: string }).artifact_type === 'SCREENSHOT') as unknown as {
        data: { artifact_uid: string };
      };
      const screenshot = (await (
        await fetch(`${server.url}/api/v1/agent/artifacts/${shot.data.artifact_uid}`, {
          headers: { Authorization: `Bearer ${server.apiKey}` },
        })
      ).json()) as { artifact_type: string; data: Record<string, unknown> };
      // ScreenshotArtifactResponse: content_type, download_url, expires_at, description.
      expect(screenshot).toMatchObject({ artifact_type: 'SCREENSHOT', data: { content_type: 'image/png', description: 'the login page' } });
      expect(Object.keys(screenshot.data).sort()).toEqual(['content_type', 'description', 'download_url', 'expires_at']);
    });
  });
}
