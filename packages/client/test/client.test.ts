import { createApiKey } from '@agentrun/core';
import type { ReferenceServer } from '@agentrun/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentRunClient, AuthenticationError, BadRequestError, ConflictError, NotFoundError, PermissionDeniedError } from '../src/index.js';
import { clientFor, inProcessFetch, startServer } from './support.js';

let server: ReferenceServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close({ graceMs: 0 }));

describe('the client against the core handler on a memory store', () => {
  it('creates, gets, follows up and cancels a run', async () => {
    const client = clientFor(server);
    const created = await client.runs.create({ prompt: 'Fix the flaky test', title: 'flaky' });
    expect(created.state).toBe('QUEUED');
    const run = await client.runs.get(created.run_id);
    expect(run).toMatchObject({ run_id: created.run_id, title: 'flaky', prompt: 'Fix the flaky test' });
    const followed = await client.runs.followup(created.run_id, { message: 'Also the other one' });
    expect(followed.run_id).toBe(created.run_id);
    expect(await client.runs.cancel(created.run_id)).toBe(created.run_id);
    expect((await client.runs.get(created.run_id)).state).toBe('CANCELLED');
    const events = await client.runs.events(created.run_id, { limit: 1000 });
    expect(events.events.length).toBeGreaterThan(0);
  });

  it('sends an Idempotency-Key on every POST and the given one when given', async () => {
    const seen: Request[] = [];
    const client = clientFor(server, { fetch: inProcessFetch(server, seen) });
    await client.runs.create({ prompt: 'a' });
    await client.runs.create({ prompt: 'b' }, { idempotencyKey: 'my-key-1' });
    await client.runs.list({ limit: 1 }).next();
    const [first, second, list] = seen;
    expect(first!.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(second!.headers.get('idempotency-key')).toBe('my-key-1');
    expect(list!.headers.get('idempotency-key')).toBeNull();
    expect(list!.url).toBe('http://agentrun.test/api/v1/agent/runs?limit=1');
  });

  it('lists every run across pages of next_cursor, and filters by state', async () => {
    const client = clientFor(server);
    const before = new Set<string>();
    for await (const run of client.runs.list({ limit: 100 })) before.add(run.run_id);
    const created = new Set<string>();
    for (let i = 0; i < 250; i++) created.add((await client.runs.create({ prompt: `run ${i}` })).run_id);

    const seen: Request[] = [];
    const paging = clientFor(server, { fetch: inProcessFetch(server, seen) });
    const listed: string[] = [];
    for await (const run of paging.runs.list({ limit: 20 })) listed.push(run.run_id);
    expect(listed.length).toBe(before.size + 250);
    expect(new Set(listed).size).toBe(listed.length);
    for (const id of created) expect(listed).toContain(id);
    expect(seen.length).toBe(Math.ceil(listed.length / 20) + (listed.length % 20 === 0 ? 1 : 0));

    const cancelledId = [...created][0]!;
    await client.runs.cancel(cancelledId);
    const cancelled: string[] = [];
    for await (const run of client.runs.list({ state: ['CANCELLED'], limit: 5 })) cancelled.push(run.run_id);
    expect(cancelled).toContain(cancelledId);
    expect(cancelled).not.toContain([...created][1]);
  });

  it('manages factories, secrets, webhooks, automations and deliveries', async () => {
    const client = clientFor(server);
    const factory = await client.factories.create({ name: 'Client test factory' });
    expect((await client.factories.get(factory.uid)).uid).toBe(factory.uid);
    expect((await client.factories.list()).factories.map((f) => f.uid)).toContain(factory.uid);

    await client.secrets.put('CLIENT_TEST_SECRET', { value: 's3cret-value' });
    const secrets = await client.secrets.list();
    expect(JSON.stringify(secrets)).not.toContain('s3cret-value');
    await client.secrets.delete('CLIENT_TEST_SECRET');
    await expect(client.secrets.delete('CLIENT_TEST_SECRET')).rejects.toBeInstanceOf(NotFoundError);

    const webhook = await client.webhooks.create(factory.uid, { name: 'ci', auth_mode: 'url_token' });
    expect(webhook.secret).toBeTruthy();
    const uid = webhook.webhook.uid;
    expect((await client.webhooks.update(factory.uid, uid, { enabled: false })).enabled).toBe(false);
    expect((await client.webhooks.rotateSecret(factory.uid, uid)).secret).not.toBe(webhook.secret);
    expect((await client.webhooks.list(factory.uid)).webhooks.map((w) => w.uid)).toEqual([uid]);
    const deliveries: unknown[] = [];
    for await (const delivery of client.deliveries.list(factory.uid, uid)) deliveries.push(delivery);
    expect(deliveries).toEqual([]);
    const automation = await client.automations.create(factory.uid, {
      name: 'On push',
      prompt: 'Look at the push',
      triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [uid], payload: { ref: ['refs/heads/main'] } } }],
    });
    expect((await client.automations.get(factory.uid, automation.id)).name).toBe('On push');
    expect((await client.automations.update(factory.uid, automation.id, { enabled: false })).enabled).toBe(false);
    const verdict = await client.automations.testFilter(factory.uid, automation.id, {
      webhook_uid: uid,
      payload: { ref: 'refs/heads/dev' },
    });
    expect(verdict.result).toBe('Would not trigger');
    expect((await client.automations.list(factory.uid)).automations.map((a) => a.id)).toEqual([automation.id]);
    await client.automations.delete(factory.uid, automation.id);
    await client.webhooks.delete(factory.uid, uid);
    await expect(client.webhooks.get(factory.uid, uid)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('error classes from real answers', () => {
  it('400, 401, 403, 404 and 409 each have their class and the problem+json fields', async () => {
    const client = clientFor(server);
    const bad = await client.runs.create({} as never).catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(BadRequestError);
    expect(bad).toMatchObject({ status: 400, error: 'invalid_request', title: 'Invalid request' });
    expect((bad as BadRequestError).detail).toBeTruthy();
    expect((bad as BadRequestError).request_id).toBeTruthy();

    const unauthenticated = clientFor(server, { apiKey: 'ar_not_a_real_key_0000000000' });
    await expect(unauthenticated.runs.get('x')).rejects.toMatchObject({ constructor: AuthenticationError, status: 401 });

    const limitedKey = await createApiKey(server.store.apiKeys, { ...server.principal, uid: 'limited', permissions: [] });
    const limited = clientFor(server, { apiKey: limitedKey });
    await expect(limited.factories.create({ name: 'nope' })).rejects.toMatchObject({ constructor: PermissionDeniedError, status: 403 });

    await expect(client.runs.get('no-such-run')).rejects.toMatchObject({ constructor: NotFoundError, status: 404, error: 'not_found' });

    await client.runs.create({ prompt: 'one' }, { idempotencyKey: 'conflicting-key' });
    const conflict = await client.runs.create({ prompt: 'two' }, { idempotencyKey: 'conflicting-key' }).catch((error: unknown) => error);
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict).toMatchObject({ status: 409, error: 'idempotency_conflict' });
    expect((conflict as ConflictError).headers.get('x-should-retry')).toBe('false');
  });

  it('a 409 marked x-should-retry: false is not retried', async () => {
    const seen: Request[] = [];
    const client = clientFor(server, { fetch: inProcessFetch(server, seen), maxRetries: 2 });
    await client.runs.create({ prompt: 'one' }, { idempotencyKey: 'no-retry-key' });
    seen.length = 0;
    await expect(client.runs.create({ prompt: 'other' }, { idempotencyKey: 'no-retry-key' })).rejects.toBeInstanceOf(ConflictError);
    expect(seen.length).toBe(1);
  });
});

describe('through a real HTTP server', () => {
  it('creates and reads a run with the global fetch', async () => {
    const client = new AgentRunClient({ apiKey: server.apiKey, baseURL: `${server.url}/` });
    const created = await client.runs.create({ prompt: 'over HTTP' });
    expect((await client.runs.get(created.run_id)).prompt).toBe('over HTTP');
    await expect(client.runs.get('missing')).rejects.toBeInstanceOf(NotFoundError);
  });
});
