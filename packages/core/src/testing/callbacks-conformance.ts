import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AgentRun, createAgentRun } from '../app/create-agent-run.js';
import { createApiKey } from '../auth/api-keys.js';
import type { CallbackRequest, CallbackResponse } from '../callbacks/sender.js';
import type { Store } from '../store/store.js';
import { isoTime } from '../util/clock.js';
import { base64UrlEncode, newId } from '../util/ids.js';
import { standardWebhooksVerifier } from '../verify/standard-webhooks.js';
import { makeRun, testPrincipal } from './fixtures.js';

/**
 * Run-state callbacks against a store (docs/callbacks.md): the outbox is written by the runs' own
 * writes for the endpoints that want the event (and only for them), the dispatcher's claim gives a
 * delivery to one caller at a time, attempts are logged, retries end in one success or a failure,
 * the failing rule disables, a resend sends the same `webhook-id` again; the API answers the same
 * on every store.
 */
export interface CallbacksConformanceOptions {
  /** A fresh, empty store for each test. */
  create: () => Store | Promise<Store>;
  destroy?: (store: Store) => void | Promise<void>;
}

const ORIGIN = 'http://agentrun.test';
const SECRET_KEY = base64UrlEncode(new Uint8Array(32).fill(9)).replace(/-/g, '+').replace(/_/g, '/');
const START = Date.UTC(2026, 5, 1, 12);

// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely here; their shapes are the route table's to check
type Json = Record<string, any>;

export function describeCallbacksConformance(name: string, options: CallbacksConformanceOptions): void {
  describe(`${name}: callbacks`, () => {
    let store: Store;
    let app: AgentRun;
    let key: string;
    let reader: string;
    let errors: unknown[];
    let now: number;
    let received: CallbackRequest[];
    /** What the receiver answers, one per request in order; then 200. */
    let script: CallbackResponse[];
    const team = `cb-team-${name}`;

    const call = async (method: string, path: string, body?: unknown, auth = key) => {
      const res = await app.fetch(
        new Request(`${ORIGIN}/api/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${auth}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        }),
      );
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json };
    };
    const ok = async (method: string, path: string, body?: unknown): Promise<Json> => {
      const res = await call(method, path, body);
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      return res.body;
    };
    const dispatch = () => app.maintenance.runAll();
    const deliveries = async (id: string) => (await ok('GET', `/callbacks/${id}/deliveries`)).deliveries as Json[];
    const newRun = async (overrides: Parameters<typeof makeRun>[0] = {}) => {
      const run = makeRun({ teamUid: team, createdAt: isoTime(now), updatedAt: isoTime(now), ...overrides });
      await store.runs.create({ run, attachments: [] });
      return run;
    };
    const claim = () => store.runs.claimNext({ workerId: 'w1', now: isoTime(now), leaseExpiresAt: isoTime(now + 60_000) });

    beforeEach(async () => {
      store = await options.create();
      errors = [];
      now = START;
      received = [];
      script = [];
      app = createAgentRun({
        store,
        secretKey: SECRET_KEY,
        clock: { now: () => now },
        onError: (e) => errors.push(e),
        maintenanceTasks: [],
        callbacks: {
          allowPrivateAddresses: true,
          // Full jitter over a zero cap: every retry is due at once (no timing in these tests).
          policy: { baseDelayMs: 0, maxAttempts: 5 },
          sender: {
            async send(request) {
              received.push(request);
              return script.shift() ?? { status: 200 };
            },
          },
        },
      });
      key = await createApiKey(store.apiKeys, testPrincipal({ uid: `cb-${name}`, team_uid: team }));
      reader = await createApiKey(store.apiKeys, testPrincipal({ uid: `cb-reader-${name}`, team_uid: team, permissions: [] }));
    });
    afterEach(async () => {
      expect(errors).toEqual([]);
      await options.destroy?.(store);
    });

    it('creates (secret shown once), lists, gets, changes, disables and deletes an endpoint; readers read, only managers change', async () => {
      const created = await call('POST', '/callbacks', { url: 'https://hooks.example.com/agentrun', event_types: ['run.state_changed'] });
      expect(created.status).toBe(201);
      const id = created.body.callback.id as string;
      expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(created.body.callback).toEqual({
        id,
        url: 'https://hooks.example.com/agentrun',
        factory_uid: null,
        event_types: ['run.state_changed'],
        description: '',
        enabled: true,
        disabled_reason: null,
        failing_since: null,
        created_at: isoTime(START),
        updated_at: isoTime(START),
      });
      expect(JSON.stringify(await ok('GET', `/callbacks/${id}`))).not.toContain('whsec_');
      expect((await call('GET', '/callbacks', undefined, reader)).body.callbacks).toHaveLength(1);
      expect((await call('POST', '/callbacks', { url: 'https://x.example.com' }, reader)).status).toBe(403);

      expect(await ok('PATCH', `/callbacks/${id}`, { enabled: false })).toMatchObject({ enabled: false, disabled_reason: 'manual' });
      expect(await ok('PATCH', `/callbacks/${id}`, { enabled: true, event_types: [] })).toMatchObject({
        enabled: true,
        disabled_reason: null,
        event_types: [],
      });
      const rotated = await ok('POST', `/callbacks/${id}/rotate-secret`);
      expect(rotated.secret).not.toBe(created.body.secret);

      expect((await call('DELETE', `/callbacks/${id}`)).status).toBe(204);
      expect((await call('GET', `/callbacks/${id}`)).status).toBe(404);
      expect((await call('DELETE', `/callbacks/${id}`)).status).toBe(404);
      // Events of one millisecond order by their random IDs: compared as a set of kinds with counts.
      const kinds = ((await ok('GET', '/audit/events')).events as Json[]).map((e) => e.kind).sort();
      expect(kinds).toEqual(['callback.created', 'callback.deleted', 'callback.rotated', 'callback.updated', 'callback.updated']);
    });

    it('refuses bad endpoints with a 400 and writes nothing', async () => {
      const strict = createAgentRun({ store, secretKey: SECRET_KEY, maintenanceTasks: [] });
      const post = async (body: unknown) =>
        (
          await strict.fetch(
            new Request(`${ORIGIN}/api/v1/callbacks`, {
              method: 'POST',
              headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
              body: JSON.stringify(body),
            }),
          )
        ).status;
      for (const url of [
        'ftp://example.com/x',
        'not a url',
        'http://127.0.0.1:8080/x',
        'http://localhost/x',
        'http://169.254.169.254/latest/meta-data',
        'http://[::1]/x',
        'http://LOCALHOST.:8080/x',
        'http://[64:ff9b::169.254.169.254]/x',
        'http://[::127.0.0.1]/x',
        'http://10.1.2.3/x',
        'http://user:pw@example.com/x',
      ])
        expect(await post({ url }), url).toBe(400);
      expect(await post({ url: 'https://example.com/x', event_types: ['run.exploded'] })).toBe(400);
      expect(await post({ url: 'https://example.com/x', factory_uid: 'no-such-factory' })).toBe(400);
      expect(await post({ url: 'https://example.com/x', extra: 1 })).toBe(400);
      expect((await ok('GET', '/callbacks')).callbacks).toEqual([]);
    });

    it('writes the outbox only for endpoints that want the event: team, factory, event types, enabled', async () => {
      await newRun(); // before any endpoint: nothing
      const all = (await ok('POST', '/callbacks', { url: 'https://a.example.com' })).callback.id as string;
      const changes = (await ok('POST', '/callbacks', { url: 'https://b.example.com', event_types: ['run.state_changed'] })).callback
        .id as string;
      await store.factories.create({
        uid: 'f1',
        teamUid: team,
        name: 'f1',
        foremanAgentIdentityUid: null,
        createdAt: isoTime(now),
        updatedAt: isoTime(now),
      });
      const factoryOnly = (await ok('POST', '/callbacks', { url: 'https://c.example.com', factory_uid: 'f1' })).callback.id as string;
      const off = (await ok('POST', '/callbacks', { url: 'https://d.example.com' })).callback.id as string;
      await ok('PATCH', `/callbacks/${off}`, { enabled: false });
      await store.runs.create({
        run: makeRun({ teamUid: 'another-team', createdAt: isoTime(START + 500), updatedAt: isoTime(START + 500) }),
        attachments: [],
      });

      // The first run was created before the endpoints and is the oldest queued: claimed first.
      now += 1000;
      const claimed = await claim();
      const factoryRun = await newRun({ factoryUid: 'f1' });

      const a = await deliveries(all);
      expect(a.map((d) => [d.event_type, d.run_id, d.from, d.to])).toEqual([
        ['run.created', factoryRun.id, null, 'QUEUED'],
        ['run.state_changed', claimed?.id, 'QUEUED', 'CLAIMED'],
      ]);
      expect(a[1]).toMatchObject({ status: 'pending', attempts: [], occurred_at: isoTime(now), next_attempt_at: isoTime(now) });
      expect((await deliveries(changes)).map((d) => d.event_type)).toEqual(['run.state_changed']);
      expect((await deliveries(factoryOnly)).map((d) => [d.event_type, d.run_id])).toEqual([['run.created', factoryRun.id]]);
      expect(await deliveries(off)).toEqual([]);
    });

    it('delivers each event once after three failures, signed with Standard Webhooks, every attempt logged', async () => {
      const created = await ok('POST', '/callbacks', { url: 'https://hooks.example.com/in', event_types: ['run.state_changed'] });
      const id = created.callback.id as string;
      await newRun();
      await claim();
      script = [{ status: 500 }, { error: 'timeout after 10000 ms' }, { status: 302 }];
      for (let round = 0; round < 6; round++) {
        now += 1000;
        await dispatch();
      }
      expect(received).toHaveLength(4);
      const ids = new Set(received.map((r) => r.headers['webhook-id']));
      expect(ids.size).toBe(1);
      const last = received[3] as CallbackRequest;
      const check = await standardWebhooksVerifier().verify({
        body: new TextEncoder().encode(last.body),
        headers: new Headers(last.headers),
        secret: created.secret,
        now,
      });
      expect(check).toEqual({ ok: true, deliveryId: [...ids][0] });
      expect(JSON.parse(last.body)).toMatchObject({ type: 'run.state_changed', data: { from: 'QUEUED', to: 'CLAIMED', state: 'CLAIMED' } });

      const [delivery] = await deliveries(id);
      expect(delivery).toMatchObject({ id: [...ids][0], status: 'succeeded', next_attempt_at: null });
      expect(((delivery?.attempts as Json[] | undefined) ?? []).map((a) => [a.attempt, a.status_code, a.ok, a.error])).toEqual([
        [1, 500, false, 'HTTP 500'],
        [2, null, false, 'timeout after 10000 ms'],
        [3, 302, false, 'HTTP 302'],
        [4, 200, true, null],
      ]);
      expect((await ok('GET', `/callbacks/${id}`)).failing_since).toBeNull();
    });

    it('sends run.artifact_added once per artifact to endpoints that asked for it, signed, with the artifact and no bytes', async () => {
      const wanted = await ok('POST', '/callbacks', { url: 'https://hooks.example.com/art', event_types: ['run.artifact_added'] });
      const states = (await ok('POST', '/callbacks', { url: 'https://hooks.example.com/st', event_types: ['run.state_changed'] })).callback
        .id as string;
      const run = await newRun();
      const uids = [newId(), newId()];
      const items = [
        { artifact_type: 'PULL_REQUEST' as const, created_at: isoTime(now + 1), data: { url: 'https://example.com/pr/1', branch: 'b1' } },
        {
          artifact_type: 'FILE' as const,
          created_at: isoTime(now + 2),
          data: { artifact_uid: uids[1] as string, filename: 'a.txt', filepath: 'out/a.txt', mime_type: 'text/plain', size_bytes: 3 },
        },
      ];
      for (const [i, item] of items.entries()) {
        const uid = uids[i] as string;
        const blob = item.artifact_type === 'FILE' ? { key: `${team}/${run.id}/${uid}`, contentType: 'text/plain', sizeBytes: 3 } : null;
        const added = await store.artifacts.add(
          { uid, runId: run.id, teamUid: team, createdAt: item.created_at, item, blob },
          { maxCount: 10, maxBytes: 100 },
        );
        expect(added).toBe('added');
      }
      expect(await deliveries(states)).toEqual([]);
      now += 1000;
      await dispatch();

      expect(received).toHaveLength(2);
      expect(new Set(received.map((r) => r.url))).toEqual(new Set(['https://hooks.example.com/art']));
      const messages = [];
      for (const r of received) {
        const check = await standardWebhooksVerifier().verify({
          body: new TextEncoder().encode(r.body),
          headers: new Headers(r.headers),
          secret: wanted.secret,
          now,
        });
        expect(check).toMatchObject({ ok: true });
        messages.push(JSON.parse(r.body) as Json);
      }
      messages.sort((a, b) => String(a.data.occurred_at).localeCompare(String(b.data.occurred_at)));
      expect(messages).toEqual(
        items.map((item, i) => ({
          type: 'run.artifact_added',
          timestamp: item.created_at,
          data: {
            run_id: run.id,
            factory_uid: null,
            from: null,
            to: 'QUEUED',
            state: 'QUEUED',
            status_message: null,
            occurred_at: item.created_at,
            artifact: { artifact_uid: uids[i], artifact_type: item.artifact_type, created_at: item.created_at, data: item.data },
          },
        })),
      );
      const log = await deliveries(wanted.callback.id as string);
      expect(log.map((d) => [d.event_type, d.artifact_uid, d.status]).sort()).toEqual(
        uids.map((uid) => ['run.artifact_added', uid, 'succeeded']).sort(),
      );
    });

    it('gives up after the attempts allowed; a resend sends the same webhook-id again in a new window; a pending one is a 409', async () => {
      const id = (await ok('POST', '/callbacks', { url: 'https://hooks.example.com/in', event_types: ['run.created'] })).callback
        .id as string;
      await newRun();
      script = Array.from({ length: 5 }, () => ({ status: 503 }));
      for (let round = 0; round < 7; round++) {
        now += 1000;
        await dispatch();
      }
      expect(received).toHaveLength(5);
      const [failed] = await deliveries(id);
      expect(failed).toMatchObject({ status: 'failed', next_attempt_at: null });
      expect((await ok('GET', `/callbacks/${id}`)).failing_since).toBe(isoTime(START + 1000));

      expect((await call('POST', `/callbacks/${id}/deliveries/nope/resend`)).status).toBe(404);
      const resent = await call('POST', `/callbacks/${id}/deliveries/${failed?.id}/resend`);
      expect(resent.status).toBe(202);
      expect(resent.body).toMatchObject({ id: failed?.id, status: 'pending', next_attempt_at: isoTime(now) });
      expect((await call('POST', `/callbacks/${id}/deliveries/${failed?.id}/resend`)).status).toBe(409);
      await dispatch();
      expect(received).toHaveLength(6);
      expect(received[5]?.headers['webhook-id']).toBe(failed?.id);
      const [after] = await deliveries(id);
      expect(after).toMatchObject({ status: 'succeeded' });
      expect(((after?.attempts as Json[] | undefined) ?? []).map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it('disables an endpoint failing for longer than the rule allows; re-enabling sends what waited', async () => {
      const failing = createAgentRun({
        store,
        secretKey: SECRET_KEY,
        clock: { now: () => now },
        onError: (e) => errors.push(e),
        maintenanceTasks: [],
        callbacks: {
          allowPrivateAddresses: true,
          policy: { baseDelayMs: 0, maxAttempts: 50, disableAfterMs: 10_000 },
          sender: {
            async send(request) {
              received.push(request);
              return { status: 500 };
            },
          },
        },
      });
      const id = (await ok('POST', '/callbacks', { url: 'https://hooks.example.com/in', event_types: ['run.created'] })).callback
        .id as string;
      await newRun();
      for (let round = 0; round < 15; round++) {
        now += 2000;
        await failing.maintenance.runAll();
      }
      const endpoint = await ok('GET', `/callbacks/${id}`);
      expect(endpoint).toMatchObject({ enabled: false, disabled_reason: 'failing' });
      const attemptsWhenDisabled = received.length;
      now += 2000;
      await failing.maintenance.runAll();
      expect(received).toHaveLength(attemptsWhenDisabled);
      // A disabled endpoint gets no new deliveries.
      await newRun();
      expect(await deliveries(id)).toHaveLength(1);

      expect(await ok('PATCH', `/callbacks/${id}`, { enabled: true })).toMatchObject({ enabled: true, failing_since: null });
      await dispatch();
      expect((await deliveries(id))[0]).toMatchObject({ status: 'succeeded' });
    });

    it('claims a due delivery for one dispatcher at a time, and again once the claim lapses', async () => {
      await ok('POST', '/callbacks', { url: 'https://hooks.example.com/in' });
      await newRun();
      const first = await store.callbacks.claimDue({ now: isoTime(now), limit: 10, claimUntil: isoTime(now + 5000) });
      expect(first).toHaveLength(1);
      expect(first[0]).toMatchObject({ url: 'https://hooks.example.com/in', delivery: { eventType: 'run.created', status: 'pending' } });
      expect(await store.callbacks.claimDue({ now: isoTime(now + 1000), limit: 10, claimUntil: isoTime(now + 6000) })).toEqual([]);
      const again = await store.callbacks.claimDue({ now: isoTime(now + 5000), limit: 10, claimUntil: isoTime(now + 9000) });
      expect(again.map((c) => c.delivery.id)).toEqual(first.map((c) => c.delivery.id));

      // The first claimer answers late: its claim was taken, so nothing of it is logged.
      const attempt = (claimedUntil: string, n: number) =>
        store.callbacks.recordAttempt({
          claimedUntil,
          attempt: {
            deliveryId: first[0]?.delivery.id as string,
            attempt: n,
            at: isoTime(now + 6000),
            statusCode: 200,
            durationMs: 1,
            error: null,
            ok: true,
          },
          status: 'succeeded',
          nextAttemptAt: null,
          now: isoTime(now + 6000),
          endpoint: { failingSince: null, disable: false },
        });
      expect(await attempt(isoTime(now + 5000), 1)).toBe(false);
      expect(await attempt(isoTime(now + 9000), 1)).toBe(true);
      expect(await attempt(isoTime(now + 9000), 2)).toBe(false);
      const [logged] = await store.callbacks.listDeliveries(team, first[0]?.delivery.endpointId as string, { limit: 10 });
      expect(logged?.attemptLog.map((a) => a.attempt)).toEqual([1]);
    });

    it('pages the delivery log newest first with cursors, and refuses a bad cursor', async () => {
      const id = (await ok('POST', '/callbacks', { url: 'https://hooks.example.com/in', event_types: ['run.created'] })).callback
        .id as string;
      const runIds: string[] = [];
      for (let i = 0; i < 5; i++) runIds.push((await newRun()).id);
      const page1 = await ok('GET', `/callbacks/${id}/deliveries?limit=2`);
      expect(page1.deliveries.map((d: Json) => d.run_id)).toEqual([runIds[4], runIds[3]]);
      expect(page1.page_info.has_next_page).toBe(true);
      const page2 = await ok('GET', `/callbacks/${id}/deliveries?limit=2&cursor=${page1.page_info.next_cursor}`);
      const page3 = await ok('GET', `/callbacks/${id}/deliveries?limit=2&cursor=${page2.page_info.next_cursor}`);
      expect([...page2.deliveries, ...page3.deliveries].map((d: Json) => d.run_id)).toEqual([runIds[2], runIds[1], runIds[0]]);
      expect(page3.page_info).toEqual({ has_next_page: false });
      expect((await call('GET', `/callbacks/${id}/deliveries?cursor=zzz`)).status).toBe(400);
      expect((await call('GET', '/callbacks/nope/deliveries')).status).toBe(404);
    });

    it('walks every endpoint by id for the re-seal, and replaces a sealed secret only while it is the expected one', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await ok('POST', '/callbacks', { url: `https://h${i}.example.com` })).callback.id as string);
      const byId = [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const first = await store.callbacks.scanEndpoints(undefined, 2);
      const rest = await store.callbacks.scanEndpoints(first.at(-1)?.id, 2);
      expect([...first, ...rest].map((e) => e.id)).toEqual(byId);
      const e = first[0] as NonNullable<(typeof first)[0]>;
      expect(await store.callbacks.resealEndpoint(e.id, 'not-the-current-one', 'x')).toBe(false);
      expect(await store.callbacks.resealEndpoint(e.id, e.secretCiphertext, 'resealed')).toBe(true);
      expect(await store.callbacks.getEndpoint(team, e.id)).toMatchObject({ secretCiphertext: 'resealed', updatedAt: e.updatedAt });
    });

    it('sweeps finished deliveries past their age, never pending ones', async () => {
      const id = (await ok('POST', '/callbacks', { url: 'https://hooks.example.com/in', event_types: ['run.created'] })).callback
        .id as string;
      await newRun();
      await dispatch();
      await newRun();
      expect(await store.callbacks.sweep(isoTime(now + 1))).toBe(1);
      expect((await deliveries(id)).map((d) => d.status)).toEqual(['pending']);
    });
  });
}
