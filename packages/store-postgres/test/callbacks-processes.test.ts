import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from './support/database.js';
import { useProcesses } from './support/processes.js';
import { waitUntil } from './support/wait.js';

// Run-state callbacks across processes (docs/callbacks.md, "Nothing is lost"): a reference server
// changes a run's state and is killed with SIGKILL while its callbacks hang on a receiver that is
// down; another server on the same database sends every one of them once the dead process's
// claims lapse. Each event reaches the receiver answered 2xx exactly once, verified with the
// `standardwebhooks` library. Skipped on PGlite (no server for child processes).
const db = await openTestDatabase('callbacks_processes');
afterAll(() => db.close());
if (!db.multiConnection) console.warn('[callbacks-processes.test] skipped: needs a PostgreSQL server (child processes share it)');

interface Received {
  id: string;
  body: string;
  headers: Record<string, string>;
}

describe.skipIf(!db.multiConnection)('callbacks when a server dies between a state change and its callback', () => {
  const procs = useProcesses();
  const apiKey = `ar_callbacks-processes-${randomBytes(8).toString('hex')}`;
  const secretKey = randomBytes(32).toString('base64');
  const serverOptions = (name: string) => ({
    name,
    databaseUrl: db.url as string,
    schema: db.schema,
    apiKey,
    demoDurationMs: 50,
    pollIntervalMs: 50,
    env: {
      AGENTRUN_SECRET_KEY: secretKey,
      AGENTRUN_CALLBACKS_ALLOW_PRIVATE: '1',
      AGENTRUN_CALLBACK_BASE_DELAY_MS: '100',
      AGENTRUN_CALLBACK_TIMEOUT_MS: '1000',
    },
  });

  it('SIGKILL after the state change loses no callback: another process sends each once', async () => {
    // The receiver: while down, it holds every request open and never answers; once up, 200.
    let up = false;
    const answered: Received[] = [];
    const hung: ServerResponse[] = [];
    let seenWhileDown = 0;
    const receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (!up) {
          seenWhileDown++;
          hung.push(res);
          return;
        }
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        answered.push({ id: headers['webhook-id'] as string, body: Buffer.concat(chunks).toString('utf8'), headers });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

    try {
      const a = await procs.server(serverOptions('server-a'));
      const call = async (base: string, method: string, path: string, body?: unknown) => {
        const res = await fetch(`${base}/api/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${apiKey}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
        expect(res.status, `${method} ${path}`).toBeLessThan(300);
        return (await res.json()) as Record<string, unknown>;
      };
      const created = (await call(a.url, 'POST', '/callbacks', { url, event_types: ['run.state_changed'] })) as {
        callback: { id: string };
        secret: string;
      };
      const { run_id } = (await call(a.url, 'POST', '/agent/run', { prompt: 'report back' })) as { run_id: string };

      // The run ends (every state change committed) while A's callbacks hang on the receiver.
      await waitUntil(
        async () => ((await call(a.url, 'GET', `/agent/runs/${run_id}`)) as { state: string }).state,
        (state) => state === 'SUCCEEDED',
        `run ${run_id} to succeed`,
      );
      await waitUntil(
        () => seenWhileDown,
        (n) => n >= 1,
        'server A to start sending callbacks',
      );
      process.kill(a.pid as number, 'SIGKILL');
      expect(await a.exited).toEqual({ code: null, signal: 'SIGKILL' });
      expect(answered).toEqual([]);
      for (const res of hung) res.destroy();

      // The receiver is up again; a new process finds every delivery in the store's outbox.
      up = true;
      const b = await procs.server(serverOptions('server-b'));
      const log = await waitUntil(
        async () =>
          (await call(b.url, 'GET', `/callbacks/${created.callback.id}/deliveries`)).deliveries as {
            id: string;
            status: string;
            from: string;
            to: string;
          }[],
        (deliveries) => deliveries.length > 0 && deliveries.every((d) => d.status === 'succeeded'),
        'every callback to be delivered by server B',
        30_000,
      );
      // QUEUED → INPROGRESS (the claim starts the run, one write) → … → SUCCEEDED: each state
      // change has its delivery (oldest first here).
      const changes = log.map((d) => [d.from, d.to]).reverse();
      expect(changes[0]).toEqual(['QUEUED', 'INPROGRESS']);
      expect(changes.at(-1)?.[1]).toBe('SUCCEEDED');
      for (const [i, [from]] of changes.slice(1).entries()) expect(from).toBe(changes[i]?.[1]);

      // Each event answered once, and each verifies with the standardwebhooks library.
      expect(answered.map((r) => r.id).sort()).toEqual(log.map((d) => d.id).sort());
      const webhook = new Webhook(created.secret);
      for (const r of answered) {
        const message = webhook.verify(r.body, r.headers) as { type: string; data: { run_id: string } };
        expect(message).toMatchObject({ type: 'run.state_changed', data: { run_id } });
      }
    } finally {
      for (const res of hung) res.destroy();
      receiver.closeAllConnections();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  }, 90_000);
});
