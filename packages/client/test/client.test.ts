import { createApiKey } from '@agentrun/core';
import type { ReferenceServer } from '@agentrun/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AgentRunClient,
  APIConnectionTimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  type Fetch,
  NotFoundError,
  PermissionDeniedError,
  type RunEvent,
  WaitTimeoutError,
} from '../src/index.js';
import { clientFor, findPostgres, inProcessFetch, type StoreKind, startServers, type TestServers } from './support.js';

/**
 * The shared client suite (docs/client.md, "What the tests prove"): the same tests against the
 * reference server on the memory store and on PostgreSQL. The answers are the server's own; only
 * what a server cannot be made to do on purpose (fail with a 503, drop a connection, hang) is a
 * wrapper around its real handler. Status classes no client operation can draw from this server
 * (422, 429, 5xx, any other) are in retries.test.ts, on a stub fetch.
 */

const postgresUrl = await findPostgres();

describe('on the memory store', () => sharedSuite('memory'));
describe.skipIf(postgresUrl === undefined)('on PostgreSQL', () => sharedSuite('postgres'));

/** A fetch to the real handler that holds its answer until the request is aborted: a server that never answers. */
const hanging: Fetch = (_input, init) =>
  new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true }));

/** Every run of the server with this title, through the client's pagination. */
const runsTitled = async (server: ReferenceServer, title: string): Promise<string[]> => {
  const ids: string[] = [];
  for await (const run of clientFor(server).runs.list({ limit: 200 })) if (run.title === title) ids.push(run.run_id);
  return ids;
};

function sharedSuite(kind: StoreKind): void {
  let servers: TestServers;
  let server: ReferenceServer;
  beforeAll(async () => {
    servers = await startServers(kind, { ...(postgresUrl ? { postgresUrl } : {}), finishMs: 150 });
    server = servers.held;
  }, 60_000);
  afterAll(() => servers?.close());

  describe('runs and management', () => {
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
      await client.runs.create({ prompt: 'b' }, { idempotencyKey: `my-key-${kind}` });
      await client.runs.list({ limit: 1 }).next();
      const [first, second, list] = seen;
      expect(first!.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
      expect(second!.headers.get('idempotency-key')).toBe(`my-key-${kind}`);
      expect(list!.headers.get('idempotency-key')).toBeNull();
      // list() walks in creation order unless told otherwise (docs/client.md, "Pagination").
      expect(list!.url).toBe('http://agentrun.test/api/v1/agent/runs?limit=1&sort_by=created_at');
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

    it('works over real HTTP with the global fetch', async () => {
      const client = new AgentRunClient({ apiKey: server.apiKey, baseURL: `${server.url}/` });
      const created = await client.runs.create({ prompt: 'over HTTP' });
      expect((await client.runs.get(created.run_id)).prompt).toBe('over HTTP');
      await expect(client.runs.get('missing')).rejects.toBeInstanceOf(NotFoundError);
    });
  });

  describe('retries and timeouts', () => {
    it('a server that fails twice (a 503, then a dropped connection) then succeeds makes exactly one run, under one Idempotency-Key', async () => {
      const real = inProcessFetch(server);
      const keys: (string | null)[] = [];
      let attempt = 0;
      const flaky: Fetch = async (input, init) => {
        attempt++;
        keys.push(new Headers(init.headers).get('idempotency-key'));
        if (attempt === 1) {
          return Response.json({ title: 'Service unavailable', error: 'unavailable' }, { status: 503, headers: { 'retry-after-ms': '0' } });
        }
        const answer = await real(input, init);
        if (attempt === 2) throw new TypeError('fetch failed: socket hang up'); // the run was made; its answer is lost
        return answer;
      };
      const title = `retry-once-${kind}`;
      const created = await clientFor(server, { fetch: flaky }).runs.create({ prompt: 'exactly once', title });
      expect(attempt).toBe(3);
      expect(new Set(keys).size).toBe(1);
      expect(keys[0]).toBeTruthy();
      expect(await runsTitled(server, title)).toEqual([created.run_id]);
    });

    it('a 409 marked x-should-retry: false is not retried', async () => {
      const seen: Request[] = [];
      const client = clientFor(server, { fetch: inProcessFetch(server, seen), maxRetries: 2 });
      await client.runs.create({ prompt: 'one' }, { idempotencyKey: 'no-retry-key' });
      seen.length = 0;
      await expect(client.runs.create({ prompt: 'other' }, { idempotencyKey: 'no-retry-key' })).rejects.toBeInstanceOf(ConflictError);
      expect(seen.length).toBe(1);
    });

    it('an answer later than timeoutMs is an APIConnectionTimeoutError; a call can set its own timeout either way', async () => {
      const real = inProcessFetch(server);
      let calls = 0;
      const slowFirst: Fetch = (input, init) => (calls++ === 0 ? hanging(input, init) : real(input, init));
      const client = clientFor(server, { fetch: slowFirst, maxRetries: 0, timeoutMs: 30 });
      await expect(client.runs.list({ limit: 1 }).next()).rejects.toBeInstanceOf(APIConnectionTimeoutError);

      const patient = clientFor(server, { fetch: hanging, maxRetries: 0 });
      await expect(patient.runs.get('any', { timeoutMs: 30 })).rejects.toBeInstanceOf(APIConnectionTimeoutError);

      // A client whose timeout is too short for a slow answer, with a call that allows more.
      const slow: Fetch = async (input, init) => {
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, 50);
          init.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true });
          init.signal?.addEventListener('abort', () => clearTimeout(timer), { once: true });
        });
        return real(input, init);
      };
      const hasty = clientFor(server, { fetch: slow, maxRetries: 0, timeoutMs: 1 });
      await expect(hasty.runs.get('missing')).rejects.toBeInstanceOf(APIConnectionTimeoutError);
      await expect(hasty.runs.get('missing', { timeoutMs: 10_000 })).rejects.toBeInstanceOf(NotFoundError);
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

      // A key of the same team without manage_factory.
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
  });

  describe('pagination', () => {
    it('lists each of 1,000 runs exactly once in pages of 100, and filters by state', async () => {
      const title = `page-${kind}`;
      // Made through the run service (as the HTTP create does, without 1,000 round trips).
      const created: string[] = [];
      for (let batch = 0; batch < 1000; batch += 50) {
        const made = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            server.agentrun.services.runs.create(server.principal, { prompt: `run ${batch + i}`, title }),
          ),
        );
        created.push(...made.map((result) => result.body.run_id));
      }
      expect(new Set(created).size).toBe(1000);

      const seen: Request[] = [];
      const paging = clientFor(server, { fetch: inProcessFetch(server, seen) });
      const listed: string[] = [];
      // list() walks by creation unless told otherwise: the held server's worker claims some of
      // these runs meanwhile, which moves updated_at (the API's default order) but not created_at.
      for await (const run of paging.runs.list({ limit: 100 })) listed.push(run.run_id);
      expect(new Set(listed).size).toBe(listed.length);
      const mine = listed.filter((id) => created.includes(id));
      expect(mine.length).toBe(1000);
      expect(seen.length).toBeGreaterThanOrEqual(10);
      for (const request of seen) {
        expect(new URL(request.url).searchParams.get('limit')).toBe('100');
        expect(new URL(request.url).searchParams.get('sort_by')).toBe('created_at');
      }

      const cancelled = created.slice(0, 7);
      for (const id of cancelled) await paging.runs.cancel(id);
      const listedCancelled: string[] = [];
      for await (const run of paging.runs.list({ state: ['CANCELLED'], limit: 3 })) {
        expect(run.state).toBe('CANCELLED');
        listedCancelled.push(run.run_id);
      }
      expect(listedCancelled.filter((id) => created.includes(id)).sort()).toEqual([...cancelled].sort());
    });
  });

  describe('wait() and stream() on runs the demo agent finishes', () => {
    it('wait() resolves with the finished run: SUCCEEDED, FAILED, or CANCELLED', async () => {
      const client = clientFor(servers.finishing);
      const ok = await client.runs.create({ prompt: 'Do the thing' });
      expect(await client.runs.wait(ok.run_id, { pollIntervalMs: 20 })).toMatchObject({ run_id: ok.run_id, state: 'SUCCEEDED' });
      const failing = await client.runs.create({ prompt: 'Please fail' });
      expect((await client.runs.wait(failing.run_id, { pollIntervalMs: 20 })).state).toBe('FAILED');

      const held = clientFor(server);
      const cancelled = await held.runs.create({ prompt: 'never finishes' });
      const waiting = held.runs.wait(cancelled.run_id, { pollIntervalMs: 20 });
      await held.runs.cancel(cancelled.run_id);
      expect((await waiting).state).toBe('CANCELLED');
    });

    it('reads started_at, source, parent_run_id and execution_location; lists by ancestor_run_id; the session redirect', async () => {
      const client = clientFor(servers.finishing);
      const parent = await client.runs.create({ prompt: 'Do the thing', source: 'CLI' });
      const child = await client.runs.create({ prompt: 'Do a part of it', parent_run_id: parent.run_id });
      const done = await client.runs.wait(child.run_id, { pollIntervalMs: 20 });
      expect(done).toMatchObject({ state: 'SUCCEEDED', parent_run_id: parent.run_id, execution_location: 'REMOTE', source: 'API' });
      expect(done.started_at).toEqual(expect.any(String));
      expect((await client.runs.get(parent.run_id)).source).toBe('CLI');
      expect((await client.runs.listPage({ ancestor_run_id: parent.run_id })).runs.map((r) => r.run_id)).toEqual([child.run_id]);
      // The worker gave the run its own ID as session; it ended, so the session shows its conversation.
      expect(await client.runs.sessionRedirect(done.session_id as string)).toEqual({ conversation_id: done.conversation_id });
      await expect(client.runs.sessionRedirect('no-such-session')).rejects.toBeInstanceOf(NotFoundError);
    });

    it('wait() past its timeoutMs rejects with WaitTimeoutError; its signal ends it with APIUserAbortError; a missing run is NotFoundError', async () => {
      const client = clientFor(server);
      const run = await client.runs.create({ prompt: 'never finishes' });
      const late = await client.runs.wait(run.run_id, { pollIntervalMs: 10, timeoutMs: 60 }).catch((error: unknown) => error);
      expect(late).toBeInstanceOf(WaitTimeoutError);
      expect(late).toMatchObject({ runId: run.run_id, timeoutMs: 60 });
      expect(['QUEUED', 'CLAIMED', 'PENDING', 'INPROGRESS']).toContain((late as WaitTimeoutError).lastState);

      const controller = new AbortController();
      const waiting = client.runs.wait(run.run_id, { pollIntervalMs: 10, signal: controller.signal });
      controller.abort();
      await expect(waiting).rejects.toBeInstanceOf(APIUserAbortError);
      await expect(client.runs.wait('no-such-run')).rejects.toBeInstanceOf(NotFoundError);
    });

    it('stream() yields every event of the run, in order, over real HTTP, and ends when the run finishes', async () => {
      const finishing = servers.finishing;
      const client = new AgentRunClient({ apiKey: finishing.apiKey, baseURL: finishing.url });
      const run = await client.runs.create({ prompt: 'Stream me' });
      const streamed: RunEvent[] = [];
      for await (const event of client.runs.stream(run.run_id)) streamed.push(event);
      const page = await client.runs.events(run.run_id, { limit: 1000 });
      expect(streamed).toEqual(page.events);
      expect(streamed.map((event) => event.id)).toEqual(streamed.map((_, i) => i + 1));
      expect(streamed.at(-1)).toMatchObject({ type: 'state', data: { to: 'SUCCEEDED' } });
      // `after` starts later in the transcript.
      const tail: RunEvent[] = [];
      for await (const event of client.runs.stream(run.run_id, { after: 2 })) tail.push(event);
      expect(tail).toEqual(page.events.slice(2));
    });

    it('stream() resumes a dropped connection with Last-Event-ID, repeating and skipping nothing', async () => {
      const finishing = servers.finishing;
      const real = inProcessFetch(finishing);
      const requests: Request[] = [];
      // The first connection breaks after some bytes (mid-event); the next ones pass.
      const dropping: Fetch = async (input, init) => {
        const request = new Request(input, init);
        requests.push(request);
        const answer = await real(input, init);
        if (requests.length > 1 || !answer.body) return answer;
        return new Response(cutAfter(answer.body, 250), { status: answer.status, headers: answer.headers });
      };
      const client = clientFor(finishing, { fetch: dropping });
      const run = await client.runs.create({ prompt: 'Stream me, with a break' });
      await client.runs.wait(run.run_id, { pollIntervalMs: 20 });
      requests.length = 0;
      const streamed: RunEvent[] = [];
      for await (const event of client.runs.stream(run.run_id)) streamed.push(event);
      expect(requests.length).toBe(2);
      const resumedAt = requests[1]!.headers.get('last-event-id');
      expect(Number(resumedAt)).toBeGreaterThan(0);
      expect(requests[0]!.headers.get('last-event-id')).toBeNull();
      expect(streamed).toEqual((await client.runs.events(run.run_id, { limit: 1000 })).events);
    });

    it('break closes the connection; the signal ends the stream with APIUserAbortError', async () => {
      const real = inProcessFetch(server);
      let cancelled = 0;
      const watched: Fetch = async (input, init) => {
        const answer = await real(input, init);
        if (!answer.body) return answer;
        const reader = answer.body.getReader();
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            const { done, value } = await reader.read();
            if (done) controller.close();
            else controller.enqueue(value);
          },
          cancel(reason) {
            cancelled++;
            return reader.cancel(reason);
          },
        });
        return new Response(body, { status: answer.status, headers: answer.headers });
      };
      const client = clientFor(server, { fetch: watched });
      // On the held server the run stays active, so its stream stays open; the follow-up makes
      // sure it has an event to send whether or not a worker took it yet.
      const run = await client.runs.create({ prompt: 'never finishes' });
      await client.runs.followup(run.run_id, { message: 'still there?' });
      for await (const event of client.runs.stream(run.run_id)) {
        expect(event.id).toBe(1);
        break;
      }
      expect(cancelled).toBe(1);

      const controller = new AbortController();
      const iterator = client.runs.stream(run.run_id, { signal: controller.signal });
      expect((await iterator.next()).value).toMatchObject({ id: 1 });
      controller.abort();
      await expect(iterator.next()).rejects.toBeInstanceOf(APIUserAbortError);
      expect(cancelled).toBe(2);
    });

    it('stream() maps errors before the stream to the error classes', async () => {
      await expect(clientFor(server).runs.stream('no-such-run').next()).rejects.toBeInstanceOf(NotFoundError);
      const stranger = clientFor(server, { apiKey: 'ar_not_a_real_key_0000000000' });
      await expect(stranger.runs.stream('no-such-run').next()).rejects.toBeInstanceOf(AuthenticationError);
    });
  });
}

/** A body that passes its first `bytes` bytes, then fails as a connection reset would. */
function cutAfter(body: ReadableStream<Uint8Array>, bytes: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let passed = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      const room = bytes - passed;
      if (value.length < room) {
        passed += value.length;
        return controller.enqueue(value);
      }
      controller.enqueue(value.subarray(0, room));
      await reader.cancel();
      controller.error(new TypeError('terminated: other side closed'));
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
