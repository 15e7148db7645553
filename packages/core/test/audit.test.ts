import { testPrincipal } from '@agentrun/core/testing';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { expectProblem, type Harness, manualClock, setup } from './helpers.js';

// The audit log through the management API (docs/management-api.md, "The audit log";
// docs/operations.md, "Audit"): control-plane changes as stored events, ingress outcomes read from
// the delivery log, merged in one order, filtered and paged; never a secret in it.

const KEY = Buffer.alloc(32, 5).toString('base64');
const ORIGIN = 'http://agentrun.test';

interface AuditEvent {
  id: string;
  kind: string;
  at: string;
  actor: { type: string; id: string };
  target: { type: string; id: string };
  factory_uid: string | null;
  detail: Record<string, unknown>;
}
interface AuditPage {
  events: AuditEvent[];
  page_info: { has_next_page: boolean; next_cursor?: string };
}

describe('audit log API', () => {
  let h: Harness;
  let factory: string;
  const audit = async (query = '') => {
    const answer = await h.json<AuditPage>('GET', `/audit/events${query}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };
  const ok = async <T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> => {
    const answer = await h.json<T>(method, path, body === undefined ? {} : { body });
    expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
    return answer.body;
  };
  const deliver = (uid: string, body: string, token: string) =>
    h.handler(new Request(`${ORIGIN}/webhooks/w/${uid}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body }));

  beforeEach(async () => {
    // Every clock reading a millisecond later: each change has its own instant.
    h = await setup({ secretKey: KEY, clock: manualClock(Date.UTC(2026, 0, 1), 1) });
    factory = (await ok<{ uid: string }>('POST', '/factories', { name: 'Acme' })).uid;
  });

  it('records every control-plane change with who, what, target and when, and serves ingress outcomes, newest first, without a secret', async () => {
    const created = await ok<{ webhook: { uid: string }; secret: string }>('POST', `/factories/${factory}/webhooks`, {
      name: 'GitHub',
      auth_mode: 'token',
    });
    const uid = created.webhook.uid;
    await ok('PATCH', `/factories/${factory}/webhooks/${uid}`, { enabled: false });
    await ok('PATCH', `/factories/${factory}/webhooks/${uid}`, { enabled: true });
    const rotated = await ok<{ secret: string }>('POST', `/factories/${factory}/webhooks/${uid}/rotate-secret`);
    const automation = await ok<{ id: string }>('POST', `/factories/${factory}/automations`, {
      name: 'Triage',
      prompt: 'Triage it',
      triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [uid] } }],
    });
    await ok('PATCH', `/factories/${factory}/automations/${automation.id}`, { enabled: false });
    await ok('DELETE', `/factories/${factory}/automations/${automation.id}`);
    await ok('PUT', '/team/secrets/deploy-key', { value: 'team-secret-value-42' });
    await ok('DELETE', '/team/secrets/deploy-key');
    expect((await deliver(uid, '{"payload_marker":"body-text-77"}', rotated.secret)).status).toBe(202);
    expect((await deliver(uid, '{}', created.secret)).status).toBe(401);
    await ok('DELETE', `/factories/${factory}/webhooks/${uid}`);

    const page = await audit('?limit=200');
    expect(page.events.map((e) => e.kind)).toEqual([
      'webhook.deleted',
      'delivery.rejected',
      'delivery.accepted',
      'secret.deleted',
      'secret.written',
      'automation.deleted',
      'automation.updated',
      'automation.created',
      'webhook.rotated',
      'webhook.toggled',
      'webhook.toggled',
      'webhook.created',
    ]);
    for (const e of page.events.filter((e) => !e.kind.startsWith('delivery.'))) {
      expect(e.actor).toEqual({ type: 'user', id: 'user-1' });
    }
    expect(page.events.at(-1)).toMatchObject({
      target: { type: 'webhook', id: uid },
      factory_uid: factory,
      detail: { name: 'GitHub', auth_mode: 'token' },
    });
    expect(page.events[1]).toMatchObject({
      actor: { type: 'webhook_sender', id: uid },
      target: { type: 'webhook', id: uid },
      detail: { status: 'Rejected (auth)' },
    });
    expect(page.events[9]?.detail).toEqual({ enabled: true });
    // Newest first, strictly: the clock moved between changes.
    const times = page.events.map((e) => e.at);
    expect([...times].sort().reverse()).toEqual(times);

    const text = JSON.stringify(page);
    for (const secret of [created.secret, rotated.secret, 'team-secret-value-42', 'body-text-77', h.key]) {
      expect(text).not.toContain(secret);
    }
  });

  it('filters by kind, actor, target and time range', async () => {
    const created = await ok<{ webhook: { uid: string }; secret: string }>('POST', `/factories/${factory}/webhooks`, {
      name: 'Hook',
      auth_mode: 'token',
    });
    const uid = created.webhook.uid;
    await ok('PUT', '/team/secrets/other', { value: 'v-1' });
    const bob = await h.keyFor(testPrincipal({ uid: 'bob' }));
    expect((await h.call('PUT', '/team/secrets/other', { key: bob, body: { value: 'v-2' } })).status).toBe(200);
    expect((await deliver(uid, '{}', created.secret)).status).toBe(202);

    const kinds = async (query: string) => (await audit(query)).events.map((e) => e.kind);
    expect(await kinds('?kind=secret.written')).toEqual(['secret.written', 'secret.written']);
    expect(await kinds('?kind=webhook.created&kind=delivery.accepted')).toEqual(['delivery.accepted', 'webhook.created']);
    expect(await kinds('?actor=bob')).toEqual(['secret.written']);
    expect(await kinds(`?target=${uid}`)).toEqual(['delivery.accepted', 'webhook.created']);
    expect(await kinds(`?actor=${uid}`)).toEqual(['delivery.accepted']);
    const all = (await audit()).events;
    const oldest = all.at(-1) as AuditEvent;
    const newest = all[0] as AuditEvent;
    expect(await kinds(`?since=${oldest.at}&until=${newest.at}`)).toEqual(['secret.written', 'secret.written', 'webhook.created']);
    // Another team sees none of it.
    const stranger = await h.keyFor(testPrincipal({ uid: 'eve', team_uid: 'team-2' }));
    expect(await (await h.call('GET', '/audit/events', { key: stranger })).json()).toEqual({
      events: [],
      page_info: { has_next_page: false },
    });
  });

  it('refuses bad queries with 400 and principals without manage_factory with 403', async () => {
    await expectProblem(await h.call('GET', '/audit/events?kind=nope'), 400, 'invalid_request');
    await expectProblem(await h.call('GET', '/audit/events?cursor=bogus'), 400, 'invalid_request');
    await expectProblem(await h.call('GET', '/audit/events?since=yesterday'), 400, 'invalid_request');
    await expectProblem(await h.call('GET', '/audit/events?limit=0'), 400, 'invalid_request');
    await expectProblem(await h.call('GET', '/audit/events?actor=a&actor=b'), 400, 'invalid_request');
    const reader = await h.keyFor(testPrincipal({ uid: 'reader', permissions: [] }));
    await expectProblem(await h.call('GET', '/audit/events', { key: reader }), 403, 'forbidden');
    const scopedReader = await h.keyFor(testPrincipal({ uid: 'scoped-reader', scopes: ['read_factory'], permissions: ['manage_factory'] }));
    await expectProblem(await h.call('GET', '/audit/events', { key: scopedReader }), 403, 'forbidden');
  });

  it('serves a key whose scopes include manage_factory, with no permissions of its own', async () => {
    const auditor = await h.keyFor(testPrincipal({ uid: 'auditor', scopes: ['manage_factory'], permissions: [] }));
    const answer = await h.call('GET', '/audit/events', { key: auditor });
    expect(answer.status).toBe(200);
  });

  it('records no event for a change that was refused', async () => {
    const created = await ok<{ webhook: { uid: string } }>('POST', `/factories/${factory}/webhooks`, {
      name: 'Hook',
      auth_mode: 'token',
    });
    const secretName = (await h.store.webhooks.getByUid(created.webhook.uid))?.secretName as string;
    // The secret is the live webhook's credential: refused, so no secret.deleted either.
    await expectProblem(await h.call('DELETE', `/team/secrets/${secretName}`), 409, 'conflict');
    await expectProblem(await h.call('DELETE', `/factories/${factory}/automations/missing`), 404, 'not_found');
    await expectProblem(await h.call('PATCH', `/factories/${factory}/webhooks/missing`, { body: { enabled: false } }), 404, 'not_found');
    expect((await audit()).events.map((e) => e.kind)).toEqual(['webhook.created']);
  });

  it('records an apply of definition files', async () => {
    await ok('PUT', '/team/secrets/s1', { value: 'token-one' });
    await ok('POST', `/factories/${factory}/apply`, {
      webhooks: [{ name: 'alpha', auth_mode: 'token', secret_name: 's1', enabled: true }],
      automations: [],
    });
    const [applied] = (await audit('?kind=definitions.applied')).events;
    expect(applied).toMatchObject({ target: { type: 'definitions', id: factory }, detail: { version: 1, webhooks: 1 } });
  });

  it('pages the merged log exactly: any page size walks the same events in the same order (property)', async () => {
    const created = await ok<{ webhook: { uid: string }; secret: string }>('POST', `/factories/${factory}/webhooks`, {
      name: 'Hook',
      auth_mode: 'token',
    });
    const uid = created.webhook.uid;
    // Changes and deliveries interleaved, some at the same instant (the clock stands still here).
    h.clock.advance(10);
    for (let i = 0; i < 6; i++) {
      await ok('PUT', `/team/secrets/s${i}`, { value: `v${i}` });
      await deliver(uid, '{}', i % 2 ? created.secret : 'wrong');
    }
    const whole = (await audit('?limit=200')).events.map((e) => e.id);
    expect(new Set(whole).size).toBe(whole.length);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 7 }),
        fc.subarray(['secret.written', 'delivery.accepted', 'delivery.rejected']),
        async (limit, kinds) => {
          const filter = kinds.map((k) => `&kind=${k}`).join('');
          const expected = (await audit(`?limit=200${filter}`)).events.map((e) => e.id);
          const walked: string[] = [];
          let cursor: string | undefined;
          do {
            const page = await audit(`?limit=${limit}${filter}${cursor ? `&cursor=${cursor}` : ''}`);
            expect(page.events.length).toBeLessThanOrEqual(limit);
            walked.push(...page.events.map((e) => e.id));
            cursor = page.page_info.next_cursor;
          } while (cursor);
          expect(walked).toEqual(expected);
        },
      ),
      { numRuns: 30 },
    );
  });
});
