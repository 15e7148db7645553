import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryStore } from '@agentrun/store-memory';
import { Webhook } from 'standardwebhooks';
import { afterEach, expect, it } from 'vitest';
import { createAgentRun } from '../src/app/create-agent-run.js';
import { createApiKey } from '../src/auth/api-keys.js';
import { testPrincipal } from '../src/testing/fixtures.js';

// Callbacks end to end, over real HTTP with the default (fetch) sender: a receiver that fails
// each message 3 times, then answers 200, gets each event once after the retries, every one
// verified with the `standardwebhooks` library. The clock is faked: every retry is due at once.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

it('a receiver failing 3 times then succeeding gets each event once, verified with standardwebhooks', async () => {
  const failuresLeft = new Map<string, number>();
  const answered: { id: string; body: string; headers: Record<string, string> }[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const id = headers['webhook-id'] as string;
      const left = failuresLeft.get(id) ?? 3;
      if (left > 0) {
        failuresLeft.set(id, left - 1);
        res.writeHead(500).end('not yet');
        return;
      }
      answered.push({ id, body: Buffer.concat(chunks).toString('utf8'), headers });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => receiver.close(() => resolve())));

  let now = Date.now();
  const store = createMemoryStore();
  const app = createAgentRun({
    store,
    secretKey: new Uint8Array(32).fill(3),
    clock: { now: () => now },
    maintenanceTasks: [],
    callbacks: { allowPrivateAddresses: true, policy: { baseDelayMs: 0 } },
  });
  const key = await createApiKey(store.apiKeys, testPrincipal());
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await app.fetch(
      new Request(`http://agentrun.test/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }),
    );
    expect(res.status).toBeLessThan(300);
    // Cancel answers the run ID as plain text.
    const text = await res.text();
    return (res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : {}) as Record<string, unknown>;
  };
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`;
  const { callback, secret } = (await api('POST', '/callbacks', { url })) as { callback: { id: string }; secret: string };
  const { run_id } = (await api('POST', '/agent/run', { prompt: 'call me back' })) as { run_id: string };
  await api('POST', `/agent/runs/${run_id}/cancel`);

  for (let round = 0; round < 6; round++) {
    now += 1000;
    await app.maintenance.runAll();
  }
  const log = (await api('GET', `/callbacks/${callback.id}/deliveries`)).deliveries as {
    id: string;
    event_type: string;
    status: string;
    attempts: { ok: boolean; status_code: number }[];
  }[];
  expect(log.map((d) => [d.event_type, d.status])).toEqual([
    ['run.state_changed', 'succeeded'],
    ['run.created', 'succeeded'],
  ]);
  for (const d of log) expect(d.attempts.map((a) => a.status_code)).toEqual([500, 500, 500, 204]);
  expect(answered.map((r) => r.id).sort()).toEqual(log.map((d) => d.id).sort());
  const webhook = new Webhook(secret);
  const types = answered.map((r) => (webhook.verify(r.body, r.headers) as { type: string }).type).sort();
  expect(types).toEqual(['run.created', 'run.state_changed']);
});
