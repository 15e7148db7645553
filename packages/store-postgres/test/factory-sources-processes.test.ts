import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir, testRepository } from '../../git-sources/test/support/repositories.js';
import { openTestDatabase } from './support/database.js';
import { type ServerProcess, useProcesses } from './support/processes.js';
import { waitUntil } from './support/wait.js';

// Two reference server processes (`npm start`) on one database, each polling the factory sources
// and each sent every push notification, apply each commit of a real repository once
// (docs/repositories.md, "Factories from a repository"). Skipped on PGlite (no server for child processes).
const db = await openTestDatabase('source_processes');
afterAll(async () => {
  await db.close();
  removeTempDirs();
});
if (!db.multiConnection) console.warn('[factory-sources-processes.test] skipped: needs a PostgreSQL server (child processes share it)');

describe.skipIf(!db.multiConnection)('factory sources across two server processes', () => {
  const procs = useProcesses();
  let servers: ServerProcess[];
  const apiKey = `ar_sources-${Math.random().toString(36).slice(2)}`;

  beforeAll(async () => {
    const secretKey = randomBytes(32).toString('base64');
    servers = await Promise.all(
      ['server-a', 'server-b'].map((name) =>
        procs.server({
          name,
          databaseUrl: db.url as string,
          schema: db.schema,
          apiKey,
          pollIntervalMs: 50,
          env: {
            AGENTRUN_SECRET_KEY: secretKey,
            AGENTRUN_SOURCE_POLL_INTERVAL_MS: '100',
            AGENTRUN_GIT_CACHE_DIR: tempDir(`cache-${name}`),
            AGENTRUN_GIT_ALLOW_LOCAL_PATHS: '1',
          },
        }),
      ),
    );
  }, 90_000);

  const call = async (server: ServerProcess, method: string, path: string, body?: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const api = async (server: ServerProcess, method: string, path: string, body?: unknown) => {
    const answer = await call(server, method, `/api/v1${path}`, body === undefined ? undefined : JSON.stringify(body));
    expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
    return answer.body;
  };

  it('applies each pushed commit once, however many processes poll and are notified', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const repo = testRepository();
    await api(a, 'PUT', '/team/secrets/gh', { value: 'gh-value-1234' });
    await api(a, 'PUT', '/team/secrets/push', { value: 'push-value-1234' });
    const { uid } = await api(a, 'POST', '/factories', { name: 'From git' });
    await api(b, 'POST', '/repositories', { name: 'acme/factory', url: repo.bare });
    const automation = (n: number) => `prompt: Prompt ${n}.\ntriggers:\n  - webhooks: [github]\n`;
    repo.commit({
      'webhooks/github.yaml': 'authMode: signature\nsignatureScheme: github\nsecretName: gh\n',
      'automations/fix.yaml': automation(0),
    });
    await api(a, 'PUT', `/factories/${uid}/source`, { repository: 'acme/factory', push_scheme: 'github', push_secret: 'push' });

    const commits: string[] = [];
    for (let n = 1; n <= 3; n++) {
      const commit = repo.commit({ 'automations/fix.yaml': automation(n) });
      commits.push(commit);
      const body = JSON.stringify({ ref: 'refs/heads/main' });
      const signature = `sha256=${createHmac('sha256', 'push-value-1234').update(body).digest('hex')}`;
      const pushed = await Promise.all(
        [a, b].map((server) =>
          call(server, 'POST', `/webhooks/sources/${uid}`, body, { 'x-hub-signature-256': signature, authorization: '' }),
        ),
      );
      expect(pushed.map((p) => p.status)).toEqual([202, 202]);
      await waitUntil(
        () => api(n % 2 === 0 ? a : b, 'GET', `/factories/${uid}/source`),
        (s) => s.last_applied?.commit === commit,
        `commit ${commit} applied`,
        30_000,
      );
    }
    // Both have polled all along (every 100 ms) and were both notified of each commit.
    const { applies } = await api(b, 'GET', `/factories/${uid}/source/applies`);
    const events = async (kind: string) =>
      (
        (await api(a, 'GET', `/audit/events?kind=${kind}&limit=200`)).events as { factory_uid: string; detail: { commit?: string } }[]
      ).filter((e) => e.factory_uid === uid);
    const applied = (await events('source.applied')).map((e) => e.detail.commit as string);
    for (const commit of commits) expect(applied.filter((c) => c === commit)).toEqual([commit]);
    expect(new Set(applied).size).toBe(applied.length);
    expect(applies.every((x: { status: string }) => x.status === 'applied')).toBe(true);
    // One definitions write per applied commit: none applied twice.
    expect((await events('definitions.applied')).length).toBe(applied.length);
    const { automations } = await api(a, 'GET', `/factories/${uid}/automations`);
    expect(automations.map((x: { prompt: string }) => x.prompt)).toEqual(['Prompt 3.']);
  }, 90_000);
});
