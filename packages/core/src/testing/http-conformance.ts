import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../auth/api-keys.js';
import { type AgentRunHandler, createAgentRunHandler } from '../http/handler.js';
import { comparePositions, RUN_SORT_KEYS, type SortOrder } from '../run/list-query.js';
import type { Store } from '../store/store.js';
import { base64UrlEncode } from '../util/ids.js';
import { fakeSkillRepositories } from './fake-repository-reader.js';
import { testPrincipal } from './fixtures.js';

/**
 * Hostile input through the whole HTTP surface, against a store: every answer is the same on every
 * store, and none is a 500 (docs/run-api.md, "Errors"). Stores run it beside
 * `describeStoreConformance`.
 */
export interface HttpConformanceOptions {
  create: () => Store | Promise<Store>;
  destroy?: (store: Store) => void | Promise<void>;
  /** Runs of the fuzz properties; default 150. */
  fuzzRuns?: number;
}

const ORIGIN = 'http://agentrun.test';
const SECRET_KEY = base64UrlEncode(new Uint8Array(32).fill(9)).replace(/-/g, '+').replace(/_/g, '/');
const b64url = (text: string) => base64UrlEncode(new TextEncoder().encode(text));

interface World {
  store: Store;
  handler: AgentRunHandler;
  key: string;
  errors: unknown[];
  runId: string;
  factory: string;
  webhook: string;
  token: string;
  automation: string;
  delivery: string;
  /** Webhooks of the other authentication modes, so the fuzz reaches every verifier. */
  urlToken: string;
  signed: string[];
}

export function describeHttpConformance(name: string, options: HttpConformanceOptions): void {
  describe(`${name}: HTTP conformance`, () => {
    let w: World;

    const call = (method: string, path: string, init: { body?: string; headers?: Record<string, string>; key?: string | null } = {}) => {
      const headers: Record<string, string> = { ...init.headers };
      const key = init.key === undefined ? w.key : init.key;
      if (key !== null) headers.authorization = `Bearer ${key}`;
      if (init.body !== undefined) headers['content-type'] ??= 'application/json';
      return w.handler(new Request(ORIGIN + path, { method, headers, ...(init.body !== undefined ? { body: init.body } : {}) }));
    };
    const json = async (method: string, path: string, body?: unknown) => {
      const res = await call(method, path, body === undefined ? {} : { body: JSON.stringify(body) });
      const text = await res.text();
      expect(res.status, text).toBeLessThan(300);
      return JSON.parse(text);
    };
    /** A 4xx problem document (or a 2xx), never a 5xx, and nothing reached onError. */
    const sane = async (res: Response) => {
      const text = await res.text();
      expect(res.status, text).toBeLessThan(500);
      if (res.status >= 400 && text !== '') {
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(JSON.parse(text)).toMatchObject({ status: res.status, error: expect.stringMatching(/^[a-z_]+$/) });
      }
      // Emptied after each look, so one failure does not fail every test after it.
      expect(w.errors.splice(0)).toEqual([]);
      return { status: res.status, text };
    };
    const status400 = async (res: Response) => {
      const { status, text } = await sane(res);
      expect(status, text).toBe(400);
    };

    beforeAll(async () => {
      const store = await options.create();
      const errors: unknown[] = [];
      // The skills the sort walk below names, in fake repositories of the test team.
      const skills = fakeSkillRepositories(['o/r:b', 'o/r:B', 'o/r:a-b', 'o/r:a']);
      const handler = createAgentRunHandler({ store, secretKey: SECRET_KEY, repositories: skills.reader, onError: (e) => errors.push(e) });
      await skills.register(store, `http-team-${name}`);
      const key = await createApiKey(store.apiKeys, testPrincipal({ uid: `http-${name}`, team_uid: `http-team-${name}` }));
      w = { store, handler, key, errors } as World;
      w.runId = (await json('POST', '/api/v1/agent/run', { prompt: 'first' })).run_id;
      await json('POST', '/api/v1/agent/run', { prompt: 'second', config: { name: 'n' } });
      w.factory = (await json('POST', '/api/v1/factories', { name: 'f' })).uid;
      const webhook = await json('POST', `/api/v1/factories/${w.factory}/webhooks`, { name: 'w' });
      w.webhook = webhook.webhook.uid;
      w.token = webhook.secret;
      w.automation = (
        await json('POST', `/api/v1/factories/${w.factory}/automations`, {
          name: 'a',
          prompt: 'p',
          triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [w.webhook] } }],
        })
      ).id;
      const sent = await call('POST', `/webhooks/w/${w.webhook}`, { key: w.token, body: '{"n":1}' });
      expect(sent.status, await sent.text()).toBeLessThan(300);
      await handler.app.evaluator.drain();
      const log = await json('GET', `/api/v1/factories/${w.factory}/webhooks/${w.webhook}/deliveries`);
      w.delivery = log.deliveries[0].delivery_id;
      w.urlToken = (await json('POST', `/api/v1/factories/${w.factory}/webhooks`, { name: 'u', auth_mode: 'url_token' })).webhook.uid;
      w.signed = [];
      for (const scheme of ['standard-webhooks', 'github', 'stripe', 'slack', 'shopify', 'gitlab', 'sentry', 'linear']) {
        const body = { name: scheme, auth_mode: 'signature', signature_scheme: scheme };
        const made = await json(
          'POST',
          `/api/v1/factories/${w.factory}/webhooks`,
          scheme === 'standard-webhooks' ? body : { ...body, provider_secret: 'whsec_provider-secret-1' },
        );
        w.signed.push(made.webhook.uid);
      }
    });
    afterAll(async () => {
      if (w) await options.destroy?.(w.store);
    });

    describe('timestamps and cursors', () => {
      it.each([
        'created_after=0000-01-01T00:00:00Z',
        'created_after=9999-12-31T23:59:59-23:59',
        'created_before=2026-02-30T00:00:00Z',
        'updated_after=2026-13-45T99:99:99.999Z',
        `cursor=${b64url(JSON.stringify({ v: 1, s: 'updated_at', o: 'desc', k: '2026-13-45T99:99:99.999Z', i: 'x' }))}`,
        `cursor=${b64url(JSON.stringify({ v: 1, s: 'updated_at', o: 'desc', k: '2026-02-30T00:00:00.000Z', i: 'x' }))}`,
        `cursor=${b64url(JSON.stringify({ v: 1, s: 'updated_at', o: 'desc', k: '2026-01-01T00:00:00.000Z', i: 'a\u0000b' }))}`,
        `cursor=${b64url(JSON.stringify({ v: 1, s: 'updated_at', o: 'desc', k: '0000-01-01T00:00:00.000Z', i: 'x' }))}`,
        `cursor=${b64url(JSON.stringify({ v: 1, s: 'updated_at', o: 'desc', k: '2026-01-01T00:00:00.000Z', i: 'x', a: '2026-02-30T00:00:00.000Z' }))}`,
        `cursor=${b64url(JSON.stringify({ v: 1, s: 'updated_at', o: 'desc', k: null, i: 'x' }))}`,
        `cursor=${b64url(JSON.stringify({ v: 1, s: 'updated_at', o: 'desc', k: '2026-01-01T00:00:00.000Z', i: 'x', extra: 1 }))}`,
        `sort_by=title&cursor=${b64url(JSON.stringify({ v: 1, s: 'title', o: 'desc', k: 'a\u0000b', i: 'x' }))}`,
        `sort_by=title&cursor=${b64url(JSON.stringify({ v: 1, s: 'title', o: 'desc', k: '\ud800', i: 'x' }))}`,
        `sort_by=title&cursor=${b64url(JSON.stringify({ v: 1, s: 'title', o: 'desc', k: null, i: 'x' }))}`,
        `sort_by=title&cursor=${b64url(JSON.stringify({ v: 1, s: 'title', o: 'desc', k: 7, i: 'x' }))}`,
        `sort_by=agent&cursor=${b64url(JSON.stringify({ v: 1, s: 'agent', o: 'desc', k: ['x'], i: 'x' }))}`,
        `sort_by=agent&cursor=${b64url(JSON.stringify({ v: 1, s: 'title', o: 'desc', k: 'x', i: 'x' }))}`,
      ])('GET /agent/runs?%s is a 400', async (query) => {
        const params = query.split('&').map((pair) => pair.split(/=(.*)/s) as [string, string]);
        const search = params.map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join('&');
        await status400(await call('GET', `/api/v1/agent/runs?${search}`));
      });

      it.each([
        b64url('["x","y"]'),
        b64url('["2026-02-30T00:00:00.000Z","y"]'),
        b64url('["2026-01-01T00:00:00.000Z","a\\u0000b"]'),
        b64url('["2026-01-01T00:00:00.000Z",1]'),
        b64url('{}'),
        'not-base64!',
      ])('a tampered delivery cursor %s is a 400', async (cursor) => {
        await status400(await call('GET', `/api/v1/factories/${w.factory}/webhooks/${w.webhook}/deliveries?cursor=${cursor}`));
      });

      it('any generated timestamp is a 200 when valid and a 400 otherwise, never a 500', async () => {
        const pad = (n: number, width: number) => String(n).padStart(width, '0');
        const stamp = fc
          .record({
            y: fc.integer({ min: 0, max: 9999 }),
            mo: fc.integer({ min: 0, max: 13 }),
            d: fc.integer({ min: 0, max: 32 }),
            h: fc.integer({ min: 0, max: 25 }),
            mi: fc.integer({ min: 0, max: 60 }),
            s: fc.integer({ min: 0, max: 60 }),
            off: fc.constantFrom('Z', '+00:00', '-23:59', '+23:59', '+24:00', '-00:60', 'z', ''),
          })
          .map(({ y, mo, d, h, mi, s, off }) => `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}${off}`);
        await fc.assert(
          fc.asyncProperty(stamp, fc.constantFrom('created_after', 'created_before', 'updated_after'), async (text, param) => {
            const res = await call('GET', `/api/v1/agent/runs?${param}=${encodeURIComponent(text)}`);
            const { status } = await sane(res);
            expect([200, 400]).toContain(status);
            expect(status === 200).toBe(isRepresentable(text));
          }),
          { numRuns: options.fuzzRuns ?? 150 },
        );
      });

      it('any generated cursor is a 200 or a 400, never a 500', async () => {
        const wire = fc.record(
          {
            v: fc.oneof(fc.constant(1), fc.anything()),
            s: fc.constantFrom('updated_at', 'created_at', 'title', 'agent', 'bogus'),
            o: fc.constantFrom('asc', 'desc'),
            k: fc.oneof(
              fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
              fc.string({ unit: 'binary' }),
              fc.constant(null),
              fc.anything(),
            ),
            i: fc.oneof(fc.uuid(), fc.string({ unit: 'binary' })),
            a: fc.oneof(
              fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
              fc.string(),
            ),
          },
          { requiredKeys: [] },
        );
        await fc.assert(
          fc.asyncProperty(
            fc.oneof(
              wire.map((x) => b64url(JSON.stringify(x))),
              fc.string(),
            ),
            fc.constantFrom(...RUN_SORT_KEYS),
            async (cursor, sortBy) => {
              const runs = await sane(await call('GET', `/api/v1/agent/runs?sort_by=${sortBy}&cursor=${encodeURIComponent(cursor)}`));
              expect([200, 400]).toContain(runs.status);
              const log = await sane(
                await call('GET', `/api/v1/factories/${w.factory}/webhooks/${w.webhook}/deliveries?cursor=${encodeURIComponent(cursor)}`),
              );
              expect([200, 400]).toContain(log.status);
            },
          ),
          { numRuns: options.fuzzRuns ?? 150 },
        );
      });
    });

    describe('the audit log', () => {
      const page = async (query: string) => {
        const { status, text } = await sane(await call('GET', `/api/v1/audit/events?${query}`));
        expect(status, text).toBe(200);
        return JSON.parse(text) as { events: { id: string; kind: string; at: string }[]; page_info: { next_cursor?: string } };
      };

      it('walks the stored events and the delivery log once each, merged newest first, at any page size', async () => {
        const whole = (await page('limit=200')).events;
        const kinds = whole.map((e) => e.kind);
        expect(kinds.filter((k) => k === 'webhook.created')).toHaveLength(10);
        expect(kinds).toContain('automation.created');
        expect(kinds).toContain('delivery.accepted');
        const order = whole.map((e) => [e.at, e.id].join(' '));
        expect(order).toEqual([...order].sort((x, y) => (x < y ? 1 : x > y ? -1 : 0)));
        for (const limit of [1, 3, 7]) {
          const walked: string[] = [];
          let cursor: string | undefined;
          do {
            const p = await page(`limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
            walked.push(...p.events.map((e) => e.id));
            cursor = p.page_info.next_cursor;
          } while (cursor);
          expect(walked).toEqual(whole.map((e) => e.id));
        }
      });

      it.each([
        'since=0000-01-01T00:00:00Z',
        'until=2026-02-30T00:00:00Z',
        `cursor=${b64url(JSON.stringify(['2026-01-01T00:00:00.000Z', 'a\u0000b']))}`,
        `cursor=${b64url(JSON.stringify(['2026-02-30T00:00:00.000Z', 'x']))}`,
        'kind=webhook.created&kind=bogus',
        'actor=%00',
      ])('%s is a 400, never a store error', async (query) => {
        await status400(await call('GET', `/api/v1/audit/events?${query}`));
      });
    });

    describe('Test filter on stored deliveries', () => {
      it('tests a delivery of a deleted webhook of the factory: the webhook check fails, the payload check runs', async () => {
        const created = await json('POST', `/api/v1/factories/${w.factory}/webhooks`, { name: 'to delete' });
        const uid = created.webhook.uid;
        const automation = await json('POST', `/api/v1/factories/${w.factory}/automations`, {
          name: 'on deleted',
          prompt: 'p',
          triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [uid], payload: { action: ['opened'] } } }],
        });
        const sent = await call('POST', `/webhooks/w/${uid}`, { key: created.secret, body: '{"action":"opened"}' });
        expect(sent.status).toBe(202);
        const { delivery_id } = await sent.json();
        expect((await call('DELETE', `/api/v1/factories/${w.factory}/webhooks/${uid}`)).status).toBe(204);
        const tested = await json('POST', `/api/v1/factories/${w.factory}/automations/${automation.id}/test-filter`, { delivery_id });
        expect(tested).toMatchObject({ result: 'Would not trigger', webhook_check: { passed: false }, payload_check: { passed: true } });
        expect(tested.webhook_check.detail).toMatch(/deleted/);
        await sane(
          await call('POST', `/api/v1/factories/${w.factory}/automations/${automation.id}/test-filter`, { body: '{"delivery_id":"nope"}' }),
        );
      });
    });

    describe('Resending a delivery (docs/management-api.md)', () => {
      it("evaluates the kept payload against today's automations: a new entry resent_from the original, its runs, an audit event", async () => {
        const created = await json('POST', `/api/v1/factories/${w.factory}/webhooks`, { name: 'resend' });
        const uid = created.webhook.uid;
        const base = `/api/v1/factories/${w.factory}/webhooks/${uid}`;
        const automation = (name: string, payload?: unknown) =>
          json('POST', `/api/v1/factories/${w.factory}/automations`, {
            name,
            prompt: 'p',
            triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [uid], ...(payload ? { payload } : {}) } }],
          });
        const runsOf = async (id: string) => (await json('GET', `/api/v1/agent/runs?automation_id=${id}`)).runs;
        const first = await automation('first', { action: ['opened'] });
        const sent = await call('POST', `/webhooks/w/${uid}`, { key: created.secret, body: '{"action":"opened"}' });
        expect(sent.status).toBe(202);
        const { delivery_id: original } = await sent.json();
        await w.handler.app.evaluator.drain(); // its runs are made after the 202
        expect(await runsOf(first.id)).toHaveLength(1);

        // Today: the first automation is off, a second one is new.
        await json('PATCH', `/api/v1/factories/${w.factory}/automations/${first.id}`, { enabled: false });
        const second = await automation('second');
        const resent = await call('POST', `${base}/deliveries/${original}/resend`, { headers: { 'idempotency-key': 'resend-1' } });
        expect(resent.status).toBe(201);
        const answer = await resent.json();
        expect(answer.delivery).toMatchObject({
          status: 'Accepted',
          resent_from: original,
          identity: `resend:${original}:${answer.delivery.delivery_id}`,
        });
        const [run] = await runsOf(second.id);
        expect(answer.run_ids).toEqual([run.run_id]);
        expect(run.trigger).toEqual({
          factory_uid: w.factory,
          automation_id: second.id,
          webhook_uid: uid,
          delivery_id: answer.delivery.delivery_id,
        });
        const attachment = await call('GET', `/api/v1/agent/runs/${run.run_id}/attachments/event-payload.json`);
        expect(await attachment.text()).toBe('{"action":"opened"}');
        expect(await runsOf(first.id)).toHaveLength(1);

        // A retry under the same key replays the answer; another resend is another entry.
        const replay = await call('POST', `${base}/deliveries/${original}/resend`, { headers: { 'idempotency-key': 'resend-1' } });
        expect(await replay.json()).toEqual(answer);
        const again = await json('POST', `${base}/deliveries/${original}/resend`);
        expect(again.delivery.delivery_id).not.toBe(answer.delivery.delivery_id);
        const log = (await json('GET', `${base}/deliveries`)).deliveries;
        expect(log.map((d: { resent_from: string | null }) => d.resent_from)).toEqual([original, original, null]);
        expect(await runsOf(second.id)).toHaveLength(2);
        const audit = (await json('GET', `/api/v1/audit/events?kind=delivery.resent`)).events;
        expect(audit).toHaveLength(2);
        expect(audit[0]).toMatchObject({ kind: 'delivery.resent', target: { type: 'delivery', id: again.delivery.delivery_id } });
        expect(w.errors.splice(0)).toEqual([]);
      });

      it('refuses what is not an accepted delivery of a live, enabled webhook, writing nothing', async () => {
        const created = await json('POST', `/api/v1/factories/${w.factory}/webhooks`, { name: 'resend refusals' });
        const uid = created.webhook.uid;
        const base = `/api/v1/factories/${w.factory}/webhooks/${uid}`;
        const bad = await call('POST', `/webhooks/w/${uid}`, { key: created.secret, body: '{"oops"' });
        expect(bad.status).toBe(400);
        const good = await call('POST', `/webhooks/w/${uid}`, { key: created.secret, body: '{}' });
        const { delivery_id } = await good.json();
        // Found by status: two entries of one millisecond are ordered by their (random) IDs.
        const log: { delivery_id: string; status: string }[] = (await json('GET', `${base}/deliveries`)).deliveries;
        const rejected = log.find((d) => d.status === 'Rejected (invalid JSON)');
        if (!rejected) throw new Error(`no rejected entry in ${JSON.stringify(log)}`);
        const entries = async () => (await json('GET', `${base}/deliveries`)).deliveries.length;

        expect((await sane(await call('POST', `${base}/deliveries/${rejected.delivery_id}/resend`))).status).toBe(409);
        expect((await sane(await call('POST', `${base}/deliveries/nope/resend`))).status).toBe(404);
        await json('PATCH', base, { enabled: false });
        expect((await sane(await call('POST', `${base}/deliveries/${delivery_id}/resend`))).status).toBe(409);
        expect((await call('DELETE', base)).status).toBe(204);
        expect((await sane(await call('POST', `${base}/deliveries/${delivery_id}/resend`))).status).toBe(409);
        expect(await entries()).toBe(2);
      });
    });

    describe('skills (docs/repositories.md)', () => {
      it('a skill drives an API run and a webhook-started run alike: base prompt, agent_skill, name; an unresolvable one is a 400', async () => {
        const created = await json('POST', `/api/v1/factories/${w.factory}/webhooks`, { name: 'skilled' });
        const automation = await json('POST', `/api/v1/factories/${w.factory}/automations`, {
          name: 'skilled',
          prompt: 'p',
          config: { skill_spec: 'o/r:b' },
          triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [created.webhook.uid] } }],
        });
        const sent = await call('POST', `/webhooks/w/${created.webhook.uid}`, { key: created.secret, body: '{}' });
        expect(sent.status).toBe(202);
        await w.handler.app.evaluator.drain();
        const [hooked] = (await json('GET', `/api/v1/agent/runs?automation_id=${automation.id}`)).runs;
        const api = await json('GET', `/api/v1/agent/runs/${(await json('POST', '/api/v1/agent/run', { skill: 'o/r:b' })).run_id}`);
        expect(api.agent_skill).toMatchObject({
          name: 'b',
          description: 'The b skill.',
          full_path: 'skills/b/SKILL.md',
          repository: 'o/r',
        });
        expect(hooked.agent_skill).toEqual(api.agent_skill);
        expect([hooked.agent_config.base_prompt, hooked.agent_config.name]).toEqual(['Do b.', 'b']);
        expect([api.agent_config.base_prompt, api.agent_config.name]).toEqual(['Do b.', 'b']);

        await status400(await call('POST', '/api/v1/agent/run', { body: '{"skill":"o/r:nope"}' }));
        await status400(
          await call('PATCH', `/api/v1/factories/${w.factory}/automations/${automation.id}`, { body: '{"config":{"skill_spec":"x/y:b"}}' }),
        );
        const agents = await json('GET', '/api/v1/agent?repo=o/r&sort_by=name');
        expect(agents.agents.map((a: { name: string }) => a.name)).toEqual(['B', 'a', 'a-b', 'b']);
      });
    });

    describe('Idempotency-Key on management POSTs', () => {
      const withKey = (key: string, body: unknown) => ({ body: JSON.stringify(body), headers: { 'idempotency-key': key } });

      it('a retried "create webhook" makes one webhook and one secret, and replays the first answer', async () => {
        const key = `wh-${Math.random()}`;
        const path = `/api/v1/factories/${w.factory}/webhooks`;
        const before = (await json('GET', path)).webhooks.length;
        const first = await call('POST', path, withKey(key, { name: 'retried' }));
        expect(first.status).toBe(201);
        const firstBody = await first.json();
        const again = await call('POST', path, withKey(key, { name: 'retried' }));
        expect(again.status).toBe(201);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(await again.json()).toEqual(firstBody);
        expect((await json('GET', path)).webhooks.length).toBe(before + 1);
        // The shown-once secret is kept sealed in the idempotency record, never in clear.
        const stored = JSON.stringify(
          (
            await w.store.idempotency.get(
              `${encodeURIComponent(`http-team-${name}`)}/${encodeURIComponent(`http-${name}`)}`,
              key,
              new Date().toISOString(),
            )
          )?.body,
        );
        expect(stored).not.toContain(firstBody.secret);
        // The same key on another request is a conflict; nothing is created.
        await sane(await call('POST', path, withKey(key, { name: 'another' })));
        const conflict = await call('POST', path, withKey(key, { name: 'another' }));
        expect(conflict.status).toBe(409);
        expect((await conflict.json()).error).toBe('idempotency_conflict');
        expect((await json('GET', path)).webhooks.length).toBe(before + 1);
      });

      it('concurrent creates with one key make one factory; a refused request is not remembered', async () => {
        const key = `f-${Math.random()}`;
        const before = (await json('GET', '/api/v1/factories')).factories.length;
        const answers = await Promise.all(
          Array.from({ length: 8 }, () => call('POST', '/api/v1/factories', withKey(key, { name: 'once' }))),
        );
        const statuses = answers.map((r) => r.status);
        for (const status of statuses) expect([201, 409]).toContain(status);
        expect(statuses).toContain(201);
        expect((await json('GET', '/api/v1/factories')).factories.length).toBe(before + 1);

        const bad = `bad-${Math.random()}`;
        expect((await call('POST', '/api/v1/factories', withKey(bad, { name: '' }))).status).toBe(400);
        expect((await call('POST', '/api/v1/factories', withKey(bad, { name: 'fixed' }))).status).toBe(201);
      });
    });

    describe('query rules', () => {
      it.each(['bogus=1', 'limit=1e2', 'limit=0x10', 'limit=0', 'limit=201', 'limit=1&limit=2', 'cursor=a&cursor=b'])(
        'the delivery log refuses %s like the run list does',
        async (query) => {
          await status400(await call('GET', `/api/v1/factories/${w.factory}/webhooks/${w.webhook}/deliveries?${query}`));
        },
      );

      it('config_name is the alias of name', async () => {
        const byName = await json('GET', '/api/v1/agent/runs?name=n');
        const byAlias = await json('GET', '/api/v1/agent/runs?config_name=n');
        expect(byAlias.runs.map((r: { run_id: string }) => r.run_id)).toEqual(byName.runs.map((r: { run_id: string }) => r.run_id));
        expect(byAlias.runs).toHaveLength(1);
        await status400(await call('GET', '/api/v1/agent/runs?name=n&config_name=m'));
      });

      it('accepts every list parameter of the Python client, as it encodes them', async () => {
        // warpdotdev/oz-sdk-python: types/agent/run_list_params.py; arrays repeat, dicts use brackets.
        const query =
          'state=QUEUED&state=FAILED&sort_by=title&sort_order=asc&limit=10&created_after=2026-01-01T00%3A00%3A00%2B00%3A00' +
          '&execution_location=REMOTE&executor=someone&skill=a%2Fb%3Ac&q=x&source=API';
        expect((await call('GET', `/api/v1/agent/runs?${query}`)).status).toBe(200);
        for (const extra of [
          'sort_by=agent',
          'artifact_type=SCREENSHOT',
          // The ancestor must be a run of the caller's team (a 400 otherwise).
          `ancestor_run_id=${w.runId}`,
          'schedule_id=s',
          'metadata%5Bticket_id%5D=VIS-238',
        ]) {
          const res = await call('GET', `/api/v1/agent/runs?${extra}`);
          expect(res.status, `${extra}: ${await res.clone().text()}`).toBe(200);
        }
        await status400(await call('GET', '/api/v1/agent/runs?metadata%5Bbad%20key%5D=1'));
        await status400(await call('GET', '/api/v1/agent/runs?ancestor_run_id=no-such-run'));
      });

      it('reads timestamps as the Python client writes datetimes (isoformat: offset, microseconds or naive UTC)', async () => {
        // httpx encodes `+` and `:`; a naive datetime has no offset and is read as UTC.
        for (const [stamp, matches] of [
          ['2000-01-01T00%3A00%3A00%2B00%3A00', true],
          ['2000-01-01T00%3A00%3A00.123456%2B05%3A30', true],
          ['2000-01-01T00%3A00%3A00', true],
          ['2000-01-01T00%3A00%3A00.5', true],
          ['9999-12-31T23%3A59%3A59', false],
        ] as const) {
          const page = await json('GET', `/api/v1/agent/runs?created_after=${stamp}&limit=1`);
          expect(page.runs.length > 0, stamp).toBe(matches);
        }
      });

      it('sort_by=title and sort_by=agent walk every run once, in code point order, both directions', async () => {
        // Titles whose code point order differs from UTF-16 order (U+FF21 vs U+1F600), case and
        // ties, and runs without a skill (last in either direction for `agent`).
        const specs: { title: string; skill?: string }[] = [
          { title: 'beta', skill: 'o/r:b' },
          { title: 'Alpha', skill: 'o/r:B' },
          { title: '\uFF21 wide' },
          { title: '\u{1F600} smile', skill: 'o/r:a-b' },
          { title: 'beta', skill: 'o/r:b' },
          { title: 'alpha' },
          { title: 'Émile', skill: 'o/r:a' },
        ];
        const made: { id: string; title: string; skill: string | null }[] = [];
        for (const spec of specs) {
          const body = { prompt: 'sortwalk', title: spec.title, ...(spec.skill ? { config: { skill_spec: spec.skill } } : {}) };
          made.push({ id: (await json('POST', '/api/v1/agent/run', body)).run_id, title: spec.title, skill: spec.skill ?? null });
        }
        for (const sortBy of ['title', 'agent'] as const) {
          for (const order of ['asc', 'desc'] as SortOrder[]) {
            const seen: string[] = [];
            let cursor: string | undefined;
            for (let page = 0; page < 10; page++) {
              const query = `q=sortwalk&sort_by=${sortBy}&sort_order=${order}&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
              const res = await json('GET', `/api/v1/agent/runs?${query}`);
              seen.push(...res.runs.map((r: { run_id: string }) => r.run_id));
              cursor = res.page_info.next_cursor;
              if (!res.page_info.has_next_page) break;
            }
            const compare = comparePositions(order);
            const value = (r: (typeof made)[number]) => (sortBy === 'title' ? r.title : r.skill);
            const expected = [...made].sort((a, b) => compare({ value: value(a), id: a.id }, { value: value(b), id: b.id }));
            expect(seen, `${sortBy} ${order}`).toEqual(expected.map((r) => r.id));
          }
        }
        // A cursor belongs to its order.
        const first = await json('GET', '/api/v1/agent/runs?q=sortwalk&sort_by=title&limit=1');
        await status400(await call('GET', `/api/v1/agent/runs?q=sortwalk&sort_by=agent&cursor=${first.page_info.next_cursor}`));
      });
    });

    describe('text no store can keep', () => {
      it.each([
        ['/webhooks/w/x%00y', 'POST'],
        ['/webhooks/w/%ED%A0%80', 'POST'],
        ['/api/v1/agent/runs/x%00y', 'GET'],
        ['/api/v1/factories/x%00y', 'GET'],
      ])('%s answers like an unknown resource, without an unexpected error', async (path, method) => {
        const { status } = await sane(await call(method, path, method === 'POST' ? { key: null, body: '{}' } : {}));
        expect([400, 404]).toContain(status);
      });

      it('NUL or text that is not UTF-8 in any path parameter of any route is a 400 or 404, never a store error', async () => {
        // Run ids, attachment names, factory uids, secret names, webhook uids, automation ids, delivery ids.
        const f = `/api/v1/factories/${w.factory}`;
        const routes = (x: string): [string, string][] => [
          ['GET', `/api/v1/agent/runs/${x}`],
          ['POST', `/api/v1/agent/runs/${x}/cancel`],
          ['POST', `/api/v1/agent/runs/${x}/followups`],
          ['GET', `/api/v1/agent/runs/${w.runId}/attachments/${x}`],
          ['GET', `/api/v1/factories/${x}`],
          ['PUT', `/api/v1/team/secrets/${x}`],
          ['DELETE', `/api/v1/team/secrets/${x}`],
          ['GET', `${f}/webhooks/${x}`],
          ['PATCH', `${f}/webhooks/${x}`],
          ['DELETE', `${f}/webhooks/${x}`],
          ['POST', `${f}/webhooks/${x}/rotate-secret`],
          ['PUT', `${f}/webhooks/${x}/provider-secret`],
          ['GET', `${f}/webhooks/${x}/deliveries`],
          ['GET', `${f}/webhooks/${w.webhook}/deliveries/${x}`],
          ['GET', `${f}/automations/${x}`],
          ['PATCH', `${f}/automations/${x}`],
          ['DELETE', `${f}/automations/${x}`],
          ['POST', `${f}/automations/${x}/test-filter`],
          ['POST', `/webhooks/w/${x}`],
          ['POST', `/webhooks/w/${w.webhook}/${x}`],
        ];
        for (const x of ['x%00y', '%00', 'a%ED%A0%80b', '%F0%9F', 'x%E2%80%8Fy', 'x%C0%80y']) {
          for (const [method, path] of routes(x)) {
            const body = method === 'GET' || method === 'DELETE' ? {} : { body: '{}' };
            const { status } = await sane(await call(method, path, body));
            expect([400, 404], `${method} ${path}`).toContain(status);
          }
        }
      });

      it.each([
        ['a config name', { prompt: 'p', config: { name: '\\ud800' } }],
        ['a base prompt', { prompt: 'p', config: { base_prompt: 'a\\udc00b' } }],
        ['MCP headers', { prompt: 'p', config: { mcp_servers: { s: { url: 'https://x.example', headers: { k: '\\ud800' } } } } }],
        ['an attachment name', { prompt: 'p', attachments: [{ file_name: 'a\\ud800.txt', mime_type: 'text/plain', data: 'aGk=' }] }],
        ['a key', { prompt: 'p', config: { mcp_servers: { '\\ud800': { warp_id: 'x' } } } }],
      ])('a lone surrogate in %s is a 400 naming where', async (_, body) => {
        const raw = JSON.stringify(body).replace(/\\\\u/g, '\\u');
        const res = await call('POST', '/api/v1/agent/run', { body: raw });
        const { status, text } = await sane(res);
        expect(status, text).toBe(400);
        expect(text).toMatch(/unpaired surrogate/);
      });

      it('a lone surrogate in automation config or filter values is a 400 too', async () => {
        const base = `/api/v1/factories/${w.factory}/automations`;
        const trigger = (payload: string) =>
          `[{"provider":"webhook","event":"received","filter":{"webhook_ids":["${w.webhook}"],"payload":${payload}}}]`;
        await status400(await call('POST', base, { body: `{"name":"a","prompt":"p","config":{"name":"\\ud800"},"triggers":[]}` }));
        await status400(await call('POST', base, { body: `{"name":"a","prompt":"p","triggers":${trigger('{"action":"\\udfff"}')}}` }));
      });

      it('a paired surrogate (an emoji written as escapes) is fine', async () => {
        const res = await call('POST', '/api/v1/agent/run', { body: '{"prompt":"smile \\ud83d\\ude00"}' });
        expect(res.status).toBe(200);
        const run = await json('GET', `/api/v1/agent/runs/${(await res.json()).run_id}`);
        expect(run.prompt).toBe('smile \u{1F600}');
      });

      it('a webhook payload with a lone surrogate or NUL is accepted and kept exactly (the bytes, not jsonb)', async () => {
        // docs/webhooks.md: the payload is stored as the bytes received, so any JSON is kept on every
        // store; the log shows it re-serialised (an unpaired surrogate as its \u escape).
        for (const body of ['{"a":"\\ud800"}', '{"a":"x\\u0000y"}', '{"\\udfff":1,"id":"\\ud800"}', '["\\ud800\\u0000"]']) {
          const res = await call('POST', `/webhooks/w/${w.webhook}`, { key: w.token, body });
          const { status, text } = await sane(res);
          expect(status, `${body}: ${text}`).toBe(202);
          const { delivery_id } = JSON.parse(text);
          const entry = await json('GET', `/api/v1/factories/${w.factory}/webhooks/${w.webhook}/deliveries/${delivery_id}`);
          expect(entry.payload, body).toEqual(JSON.parse(body));
          const raw = await call('GET', `/api/v1/factories/${w.factory}/webhooks/${w.webhook}/deliveries/${delivery_id}/payload`);
          expect(await raw.text()).toBe(body);
        }
      });

      it('the payload route serves the exact bytes received: big numbers, spellings, key order, whitespace', async () => {
        const body = '{ "zeta": 12345678901234567890, "alpha": 1.50, "e": 1e2,\r\n "s": "h\u00e9llo \u00e9" }';
        const res = await call('POST', `/webhooks/w/${w.webhook}`, { key: w.token, body });
        const { status, text } = await sane(res);
        expect(status, text).toBe(202);
        const path = `/api/v1/factories/${w.factory}/webhooks/${w.webhook}/deliveries/${JSON.parse(text).delivery_id}`;
        const raw = await call('GET', `${path}/payload`);
        expect(raw.status).toBe(200);
        expect(raw.headers.get('content-type')).toMatch(/^application\/json/);
        expect(await raw.text()).toBe(body);
        // The entry's `payload` is that JSON parsed: the number is rounded there, as documented.
        expect((await json('GET', path)).payload.zeta).toBe(12345678901234567000);
        // A delivery without a payload (rejected) and an unknown one.
        const rejected = await call('POST', `/webhooks/w/${w.webhook}`, { key: 'wrong-token', body: '{}' });
        expect(rejected.status).toBe(401);
        const log = await json('GET', `/api/v1/factories/${w.factory}/webhooks/${w.webhook}/deliveries?limit=200`);
        const refused = log.deliveries.find((d: { status: string }) => d.status === 'Rejected (auth)');
        expect(
          (await sane(await call('GET', `/api/v1/factories/${w.factory}/webhooks/${w.webhook}/deliveries/${refused.delivery_id}/payload`)))
            .status,
        ).toBe(409);
        expect((await sane(await call('GET', `/api/v1/factories/${w.factory}/webhooks/${w.webhook}/deliveries/nope/payload`))).status).toBe(
          404,
        );
      });
    });

    describe('run request bodies', () => {
      const MiB = 1024 * 1024;
      /** Standard base64 of `bytes` bytes of a repeating pattern, written without Node built-ins. */
      const base64Of = (bytes: number) => {
        const data = new Uint8Array(bytes).map((_, i) => (i * 7) & 0xff);
        let binary = '';
        for (let i = 0; i < data.length; i += 0x8000) binary += String.fromCharCode(...data.subarray(i, i + 0x8000));
        return { data, text: btoa(binary) };
      };

      it.each([3 * MiB, 5 * MiB])('keeps a %i-byte attachment byte for byte', async (bytes) => {
        const { data, text } = base64Of(bytes);
        const body = { prompt: 'p', attachments: [{ file_name: 'big.bin', mime_type: 'application/octet-stream', data: text }] };
        const { run_id } = await json('POST', '/api/v1/agent/run', body);
        const res = await call('GET', `/api/v1/agent/runs/${run_id}/attachments/big.bin`);
        expect(res.status).toBe(200);
        const served = new Uint8Array(await res.arrayBuffer());
        expect(served.byteLength).toBe(bytes);
        expect(served.every((b, i) => b === data[i])).toBe(true);
        expect(w.errors.splice(0)).toEqual([]);
      });

      it('refuses 5 MiB + 1 byte with a 400, storing nothing', async () => {
        const before = (await json('GET', '/api/v1/agent/runs?limit=500')).runs.length;
        const body = {
          prompt: 'p',
          attachments: [{ file_name: 'big.bin', mime_type: 'application/octet-stream', data: base64Of(5 * MiB + 1).text }],
        };
        await status400(await call('POST', '/api/v1/agent/run', { body: JSON.stringify(body) }));
        expect((await json('GET', '/api/v1/agent/runs?limit=500')).runs.length).toBe(before);
      });

      it('cancel answers the bare ID as text/plain, and so does its replay under the same Idempotency-Key', async () => {
        const { run_id } = await json('POST', '/api/v1/agent/run', { prompt: 'to cancel' });
        for (const replayed of [null, 'true']) {
          const res = await call('POST', `/api/v1/agent/runs/${run_id}/cancel`, { headers: { 'idempotency-key': `cancel-${run_id}` } });
          expect([res.status, res.headers.get('content-type'), res.headers.get('idempotent-replayed')]).toEqual([
            200,
            'text/plain; charset=utf-8',
            replayed,
          ]);
          expect(await res.text()).toBe(run_id);
        }
      });

      it('stores the config fields of both published clients and shows them in agent_config', async () => {
        const config = {
          name: 'clients',
          computer_use_enabled: true,
          idle_timeout_minutes: 60,
          worker_host: 'warp',
          harness: { type: 'claude', auth_secret_name: 'ANTHROPIC', model_id: 'claude-haiku-4-5', reasoning_level: 'high' },
          credential_strategy: null,
          session_sharing: { public_access: 'VIEWER' },
        };
        // The secret the harness names must be the team's (docs/harnesses.md, "Authentication").
        await json('PUT', '/api/v1/team/secrets/ANTHROPIC', { value: 'sk-ant-conformance' });
        const { run_id } = await json('POST', '/api/v1/agent/runs', { prompt: 'p', team: true, interactive: false, mode: 'plan', config });
        expect((await json('GET', `/api/v1/agent/runs/${run_id}`)).agent_config).toEqual(config);
      });
    });

    describe('fuzz', () => {
      const segment = fc.oneof(
        fc.constantFrom('x', '%00', '%ZZ', '%ED%A0%80', '..', '%2F', 'a'.repeat(300)),
        fc.string({ unit: 'binary', maxLength: 12 }).map(encodeURIComponent),
      );
      const paths = (x: string) => [
        `/api/v1/agent/run`,
        `/api/v1/agent/runs`,
        `/api/v1/agent/runs/${x}`,
        `/api/v1/agent/runs/${x}/cancel`,
        `/api/v1/agent/runs/${x}/followups`,
        `/api/v1/agent/runs/${x}/attachments/${x}`,
        `/api/v1/factories`,
        `/api/v1/factories/${x}`,
        `/api/v1/team/secrets/${x}`,
        `/api/v1/factories/${w.factory}/webhooks`,
        `/api/v1/factories/${w.factory}/webhooks/${x}`,
        `/api/v1/factories/${w.factory}/webhooks/${x}/rotate-secret`,
        `/api/v1/factories/${w.factory}/webhooks/${w.webhook}/deliveries/${x}`,
        `/api/v1/factories/${w.factory}/automations`,
        `/api/v1/factories/${w.factory}/automations/${x}`,
        `/api/v1/factories/${w.factory}/automations/${w.automation}/test-filter`,
        `/api/v1/factories/${w.factory}/webhooks/${x}/provider-secret`,
        `/webhooks/w/${x}`,
        `/webhooks/w/${w.webhook}`,
        `/webhooks/w/${w.urlToken}/${x}`,
        ...w.signed.map((uid) => `/webhooks/w/${uid}`),
      ];
      const jsonish = fc.oneof(
        fc.json({ maxDepth: 4 }),
        fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify({ prompt: 'p', name: 'n', message: 'm', value: 'v', config: v })),
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.constantFrom('', '{', '{"prompt":"\\ud800"}', '{"prompt":"a\\u0000"}', '[]', 'null', '{"triggers":[{}]}'),
      );
      const query = fc.dictionary(
        fc.constantFrom('limit', 'cursor', 'state', 'sort_by', 'created_after', 'name', 'q', 'bogus', 'metadata[k]'),
        fc.oneof(fc.string({ unit: 'binary', maxLength: 20 }), fc.constantFrom('0', '500', '1e2', 'QUEUED', '2026-01-01T00:00:00Z')),
        { maxKeys: 3 },
      );
      const header = fc.constantFrom<Record<string, string>>(
        {},
        { 'idempotency-key': 'k' },
        { 'idempotency-key': ' ' },
        { 'content-type': 'text/plain' },
        { 'x-request-id': 'x'.repeat(500) },
        { 'x-webhook-delivery-id': 'd' },
        { authorization: 'Basic eDp5' },
        { authorization: 'Bearer ' },
      );
      // Signature headers of every scheme, with generated values (timestamps, versions, encodings).
      const signatureHeaders = fc.dictionary(
        fc.constantFrom(
          'webhook-id',
          'webhook-timestamp',
          'webhook-signature',
          'stripe-signature',
          'x-hub-signature-256',
          'x-github-delivery',
          'x-slack-signature',
          'x-slack-request-timestamp',
          'x-shopify-hmac-sha256',
          'x-gitlab-token',
          'sentry-hook-signature',
          'sentry-hook-timestamp',
          'linear-signature',
          'linear-delivery',
        ),
        fc.oneof(
          fc.string({ maxLength: 30 }).map((t) => t.replace(/[^\x20-\x7e]/g, '')),
          fc.constantFrom('v1,AAAA', 't=1,v1=ab', 'sha256=00', '0', '-1', '99999999999999999999', 'v1a,xyz v1,==='),
        ),
        { maxKeys: 4 },
      );

      it('no route answers 500 to generated methods, paths, queries, bodies and headers', async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.constantFrom('GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE'),
            segment,
            fc.nat(),
            query,
            jsonish,
            header,
            signatureHeaders,
            fc.boolean(),
            async (method, x, which, q, body, headers, signatures, withKey) => {
              const list = paths(x);
              const path = list[which % list.length] as string;
              const search = new URLSearchParams(q as Record<string, string>).toString();
              const init = {
                headers: { ...headers, ...signatures },
                key: withKey ? w.key : null,
                ...(method === 'GET' || method === 'HEAD' ? {} : { body }),
              };
              await sane(await call(method, search ? `${path}?${search}` : path, init));
            },
          ),
          { numRuns: (options.fuzzRuns ?? 150) * 2 },
        );
      });
    });
  });
}

/** The reference rule for accepted timestamps (docs/run-api.md): a real instant in 0001–9999 UTC. */
function isRepresentable(text: string): boolean {
  // No offset reads as UTC (what Python's isoformat() writes for a naive datetime).
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[Zz]|([+-])(\d{2}):(\d{2}))?$/.exec(text);
  if (!m) return false;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (h > 23 || mi > 59 || s > 59) return false;
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d); // full years: Date.UTC would read 0–99 as 1900–1999
  if (t.getUTCFullYear() !== y || t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d) return false;
  t.setUTCHours(h, mi, s, 0);
  let ms = t.getTime();
  if (m[7] !== undefined) {
    const oh = Number(m[8]);
    const om = Number(m[9]);
    if (oh > 23 || om > 59) return false;
    ms -= (m[7] === '+' ? 1 : -1) * (oh * 60 + om) * 60_000;
  }
  const year = new Date(ms).getUTCFullYear();
  return year >= 1 && year <= 9999;
}
