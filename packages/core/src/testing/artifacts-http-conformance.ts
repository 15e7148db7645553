import { afterEach, describe, expect, it } from 'vitest';
import { type AgentRun, createAgentRun } from '../app/create-agent-run.js';
import type { BlobStore } from '../artifacts/blob-store.js';
import type { ArtifactReportResult, ReportedArtifact } from '../artifacts/report.js';
import { createApiKey } from '../auth/api-keys.js';
import type { Executor } from '../executor/executor.js';
import type { Store } from '../store/store.js';

/**
 * Artifacts end to end through `createAgentRun` (docs/artifacts.md): reported by an executor,
 * shown in the RunItem, filtered by `artifact_type`, answered by `GET /agent/artifacts/{uid}` with
 * a signed link that opens without an API key, and refused when tampered with or expired.
 */
export interface ArtifactsHttpConformanceOptions {
  /** A fresh, empty store and a blob store for each test. */
  create: () => Promise<{ store: Store; blobs: BlobStore }> | { store: Store; blobs: BlobStore };
}

const ORIGIN = 'http://agentrun.test';
const SECRET_KEY = 'a'.repeat(64);
/** The smallest PNG header a screenshot check accepts: the 8-byte signature and a little more. */
export const PNG_BYTES = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);

export function describeArtifactsHttpConformance(name: string, options: ArtifactsHttpConformanceOptions): void {
  describe(`Artifacts over HTTP: ${name}`, () => {
    let app: AgentRun | undefined;
    const stops: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const stop of stops.splice(0)) await stop();
      await app?.close({ closeStore: false });
    });

    /** A server whose executor reports `reports` and succeeds, with a clock the test moves. */
    async function serve(reports: readonly ReportedArtifact[]) {
      const { store, blobs } = await options.create();
      const clock = { ms: Date.UTC(2026, 0, 1), now: () => clock.ms };
      const results: ArtifactReportResult[] = [];
      const executor: Executor = {
        async execute(_input, context) {
          for (const report of reports) {
            const result = await context.reportArtifact?.(report);
            if (result) results.push(result);
          }
          return { status: 'succeeded', message: 'done' };
        },
      };
      app = createAgentRun({ store, blobs, clock, secretKey: SECRET_KEY, artifactLimits: { maxFileBytes: 1000 } });
      const key = await createApiKey(store.apiKeys, { type: 'user', uid: 'u1', team_uid: 'team-art' });
      const otherKey = await createApiKey(store.apiKeys, { type: 'user', uid: 'u2', team_uid: 'team-other' });
      const call = async (path: string, init: RequestInit = {}, bearer: string | null = key) =>
        app?.fetch(
          new Request(`${ORIGIN}${path}`, {
            ...init,
            headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), 'content-type': 'application/json', ...init.headers },
          }),
        ) as Promise<Response>;
      const created = await (await call('/api/v1/agent/run', { method: 'POST', body: JSON.stringify({ prompt: 'make things' }) })).json();
      const runId = (created as { run_id: string }).run_id;
      const worker = app.worker({ executor, pollIntervalMs: 10 });
      stops.push(() => worker.stop());
      worker.start();
      let run: { state: string; artifacts?: { artifact_type: string; data: Record<string, unknown> }[] } = { state: 'QUEUED' };
      for (let i = 0; i < 2000 && !['SUCCEEDED', 'FAILED', 'ERROR'].includes(run.state); i++) {
        await new Promise((r) => setTimeout(r, 5));
        run = (await (await call(`/api/v1/agent/runs/${runId}`)).json()) as typeof run;
      }
      return { store, clock, call, runId, run, results, otherKey };
    }

    it("shows each kind in the RunItem, filters the list by artifact_type, and opens a file's signed link without an API key", async () => {
      const { call, runId, run, results, otherKey } = await serve([
        { type: 'PULL_REQUEST', url: 'https://github.com/acme/app/pull/7', branch: 'fix/auth' },
        { type: 'PLAN', title: 'The plan', content: '# Plan\n1. fix' },
        { type: 'SCREENSHOT', filepath: 'shot.png', content: PNG_BYTES, description: 'after' },
        {
          type: 'FILE',
          filepath: 'out/page.html',
          content: new TextEncoder().encode('<script>alert(1)</script>'),
          content_type: 'text/html',
        },
      ]);
      expect(run.state).toBe('SUCCEEDED');
      expect(results.every((r) => r.accepted)).toBe(true);
      expect(run.artifacts?.map((a) => a.artifact_type)).toEqual(['PULL_REQUEST', 'PLAN', 'SCREENSHOT', 'FILE']);
      expect(run.artifacts?.[0]?.data).toEqual({ url: 'https://github.com/acme/app/pull/7', branch: 'fix/auth' });
      const file = run.artifacts?.[3]?.data as { artifact_uid: string };
      expect(file).toMatchObject({ filename: 'page.html', filepath: 'out/page.html', mime_type: 'text/html', size_bytes: 25 });

      const listed = async (type: string) =>
        ((await (await call(`/api/v1/agent/runs?artifact_type=${type}`)).json()) as { runs: { run_id: string }[] }).runs.map(
          (r) => r.run_id,
        );
      expect(await listed('FILE')).toEqual([runId]);
      expect(await listed('EXTERNAL_REFERENCE')).toEqual([]);

      const got = await call(`/api/v1/agent/artifacts/${file.artifact_uid}`);
      expect(got.status).toBe(200);
      const body = (await got.json()) as {
        artifact_type: string;
        data: { download_url: string; expires_at: string; content_type: string };
      };
      expect(body).toMatchObject({
        artifact_type: 'FILE',
        artifact_uid: file.artifact_uid,
        data: { content_type: 'text/html', filename: 'page.html' },
      });
      expect(body.data.expires_at).toBe('2026-01-01T00:15:00.000Z');
      const url = new URL(body.data.download_url);
      expect(url.origin).toBe(ORIGIN);
      const download = await call(url.pathname + url.search, {}, null);
      expect(download.status).toBe(200);
      expect(new TextDecoder().decode(await download.arrayBuffer())).toBe('<script>alert(1)</script>');
      // HTML is never rendered: an attachment, not sniffed.
      expect(download.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''page.html");
      expect(download.headers.get('x-content-type-options')).toBe('nosniff');

      // Another team's key does not find it.
      expect((await call(`/api/v1/agent/artifacts/${file.artifact_uid}`, {}, otherKey)).status).toBe(404);
      expect((await call('/api/v1/agent/artifacts/no-such-artifact')).status).toBe(404);
    });

    it('serves a screenshot inline with its image type; a plan with its text; a pull request without a link', async () => {
      const { call, run } = await serve([
        { type: 'SCREENSHOT', filepath: 'shot.png', content: PNG_BYTES },
        { type: 'PLAN', title: 'Plan', content: '# Plan' },
        { type: 'PULL_REQUEST', url: 'https://example.com/pr/1', branch: 'b' },
      ]);
      const [shot, plan] = (run.artifacts ?? []).map((a) => a.data as { artifact_uid: string });
      const screenshot = (await (await call(`/api/v1/agent/artifacts/${shot?.artifact_uid}`)).json()) as { data: Record<string, unknown> };
      expect(screenshot).toMatchObject({ artifact_type: 'SCREENSHOT', data: { content_type: 'image/png' } });
      const res = await call(
        new URL(screenshot.data.download_url as string).pathname + new URL(screenshot.data.download_url as string).search,
        {},
        null,
      );
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.headers.get('content-disposition')).toMatch(/^inline; /);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(PNG_BYTES);
      const planView = (await (await call(`/api/v1/agent/artifacts/${plan?.artifact_uid}`)).json()) as { data: Record<string, unknown> };
      expect(planView).toMatchObject({ artifact_type: 'PLAN', data: { title: 'Plan', content_type: 'text/markdown; charset=utf-8' } });
      const text = await call(
        new URL(planView.data.download_url as string).pathname + new URL(planView.data.download_url as string).search,
        {},
        null,
      );
      expect(await text.text()).toBe('# Plan');
      expect(text.headers.get('content-disposition')).toMatch(/^attachment; /);
    });

    it('refuses a tampered link and an expired one with 403 problems', async () => {
      const { call, clock, run } = await serve([{ type: 'FILE', filepath: 'a.txt', content: new TextEncoder().encode('hello') }]);
      const uid = (run.artifacts?.[0]?.data as { artifact_uid: string } | undefined)?.artifact_uid;
      const view = (await (await call(`/api/v1/agent/artifacts/${uid}`)).json()) as { data: { download_url: string } };
      const url = new URL(view.data.download_url);
      const path = url.pathname;
      const expires = url.searchParams.get('expires') as string;
      const signature = url.searchParams.get('signature') as string;
      // The first character carries six bits of the MAC (the last one has padding bits a decoder may ignore).
      const flipped = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
      for (const query of [
        `?expires=${expires}&signature=${flipped}`,
        `?expires=${Number(expires) + 3600}&signature=${signature}`,
        `?expires=${expires}`,
        '',
        `?expires=x&signature=${signature}`,
      ]) {
        const res = await call(path + query, {}, null);
        expect(res.status, query).toBe(403);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
      // The same signature for another artifact opens nothing.
      const other = await call(`/api/v1/artifacts/00000000-0000-4000-8000-000000000000/download${url.search}`, {}, null);
      expect(other.status).toBe(403);
      expect((await call(path + url.search, {}, null)).status).toBe(200);
      clock.ms += 15 * 60 * 1000;
      const expired = await call(path + url.search, {}, null);
      expect(expired.status).toBe(403);
      expect(((await expired.json()) as { detail: string }).detail).toMatch(/expired/);
    });

    it("keeps an agent's text every store can keep: NUL and lone surrogates become U+FFFD", async () => {
      const { run, results } = await serve([
        { type: 'FILE', filepath: 'a\u0000b.txt', content: new Uint8Array([1]), description: 'x\u0000y\ud800' },
      ]);
      expect(results).toEqual([{ accepted: true, artifact_uid: expect.any(String) }]);
      expect(run.artifacts?.[0]?.data).toMatchObject({ filepath: 'a\ufffdb.txt', filename: 'a\ufffdb.txt', description: 'x\ufffdy\ufffd' });
    });

    it('stores nothing for an oversized file or a screenshot that is no image, and the run still ends as its executor says', async () => {
      const { run, results } = await serve([
        { type: 'FILE', filepath: 'big.bin', content: new Uint8Array(1001) },
        { type: 'SCREENSHOT', filepath: 'fake.png', content: new TextEncoder().encode('<svg onload="x()"/>') },
        { type: 'PULL_REQUEST', url: 'javascript:alert(1)', branch: 'b' },
        { type: 'FILE', filepath: 'ok.txt', content: new Uint8Array(1000) },
      ]);
      expect(run.state).toBe('SUCCEEDED');
      expect(results.map((r) => r.accepted)).toEqual([false, false, false, true]);
      expect(results[0]).toMatchObject({ reason: expect.stringMatching(/1001 bytes; at most 1000/) });
      expect(run.artifacts?.map((a) => a.data.filepath)).toEqual(['ok.txt']);
    });
  });
}
