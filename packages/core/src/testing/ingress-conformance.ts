import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeliveryRecord } from '../ingress/records.js';
import type { Store } from '../store/store.js';
import { isoTime } from '../util/clock.js';
import { newId } from '../util/ids.js';
import { makeAutomation, makeSecret, makeWebhook } from './control-plane-conformance.js';
import { makeRun } from './fixtures.js';

const T0 = Date.UTC(2026, 0, 1);
const at = (ms: number) => isoTime(T0 + ms);

export const makeDelivery = (o: Partial<DeliveryRecord> = {}): DeliveryRecord => ({
  id: newId(),
  teamUid: 'team-1',
  factoryUid: 'factory-1',
  webhookUid: 'w1',
  identity: `sha256:${newId()}`,
  size: 3,
  receivedAt: at(0),
  status: 'Accepted',
  payload: new Uint8Array([123, 125, 10]),
  ...o,
});

/** The ingress part of the store conformance suite (see `describeStoreConformance`). */
export function describeIngressConformance(current: () => Store): void {
  describe('deliveries', () => {
    it('finds an entry by id within its team, whichever webhook it came to', async () => {
      const store = current();
      const entry = makeDelivery({ webhookUid: 'w-gone', status: 'Rejected (auth)', payload: null, identity: null });
      await store.deliveries.log(entry);
      expect((await store.deliveries.find('team-1', entry.id))?.webhookUid).toBe('w-gone');
      expect(await store.deliveries.find('team-2', entry.id)).toBeUndefined();
      expect(await store.deliveries.find('team-1', 'nope')).toBeUndefined();
    });

    it('accepts a delivery with its runs, and logs a repeat of its identity as Duplicate without runs', async () => {
      const store = current();
      const run = makeRun({ source: 'WEBHOOK' });
      const first = makeDelivery({ identity: 'h:evt-1' });
      expect(
        await store.deliveries.accept({
          delivery: first,
          runs: [
            {
              run,
              attachments: [
                { runId: run.id, fileName: 'event-payload.json', mimeType: 'application/json', data: new Uint8Array([123, 125]) },
              ],
            },
          ],
        }),
      ).toEqual({
        accepted: true,
      });
      expect(await store.runs.get(run.id)).toEqual(run);
      expect([...((await store.runs.getAttachment('team-1', run.id, 'event-payload.json'))?.data ?? [])]).toEqual([123, 125]);
      const again = makeDelivery({ identity: 'h:evt-1', receivedAt: at(5) });
      const extra = makeRun();
      expect(await store.deliveries.accept({ delivery: again, runs: [{ run: extra, attachments: [] }] })).toEqual({
        accepted: false,
        duplicateOf: first.id,
      });
      expect(await store.runs.get(extra.id)).toBeUndefined();
      expect(await store.deliveries.get('team-1', 'w1', again.id)).toMatchObject({ status: 'Duplicate', payload: null });
      expect([...((await store.deliveries.get('team-1', 'w1', first.id))?.payload ?? [])]).toEqual([123, 125, 10]);
      // The same identity on another webhook is another delivery.
      expect(await store.deliveries.accept({ delivery: makeDelivery({ identity: 'h:evt-1', webhookUid: 'w2' }), runs: [] })).toEqual({
        accepted: true,
      });
    });

    it('of racing identical deliveries accepts exactly one', async () => {
      const store = current();
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, () =>
          store.deliveries.accept({ delivery: makeDelivery({ identity: 'h:race' }), runs: [{ run: makeRun(), attachments: [] }] }),
        ),
      );
      expect(outcomes.filter((o) => o.accepted)).toHaveLength(1);
      const list = await store.deliveries.list('team-1', 'w1', { limit: 50 });
      expect(list.filter((d) => d.status === 'Accepted')).toHaveLength(1);
      expect(list.filter((d) => d.status === 'Duplicate')).toHaveLength(9);
    });

    it('of many concurrent accepts awaiting evaluation accepts one per identity, as one after another would', async () => {
      // The ingress's accepts (no runs): a database store may commit concurrent ones together
      // (docs/production.md, "Group commit"); the answers are those of some sequential order.
      const store = current();
      const webhookUid = `w-${newId()}`;
      const attempts = Array.from({ length: 40 }, (_, i) => makeDelivery({ webhookUid, identity: `h:${i % 4}`, receivedAt: at(i) }));
      const outcomes = await Promise.all(attempts.map((delivery) => store.deliveries.accept({ delivery })));
      const winners = attempts.filter((_, i) => outcomes[i]?.accepted);
      expect(winners.map((d) => d.identity).sort()).toEqual(['h:0', 'h:1', 'h:2', 'h:3']);
      outcomes.forEach((outcome, i) => {
        const winner = winners.find((d) => d.identity === attempts[i]?.identity);
        if (!outcome.accepted) expect(outcome).toEqual({ accepted: false, duplicateOf: winner?.id });
      });
      const log = await store.deliveries.list('team-1', webhookUid, { limit: 50 });
      expect(
        log
          .filter((d) => d.status === 'Accepted')
          .map((d) => d.id)
          .sort(),
      ).toEqual(winners.map((d) => d.id).sort());
      expect(log.filter((d) => d.status === 'Duplicate')).toHaveLength(36);
    });

    it('logs rejected entries, lists newest first by keyset, scopes to the team', async () => {
      const store = current();
      const entries = [0, 1, 2, 3, 4].map((i) =>
        makeDelivery({ receivedAt: at(i * 10), status: 'Rejected (auth)', identity: null, payload: null }),
      );
      for (const e of entries) await store.deliveries.log(e);
      const first = await store.deliveries.list('team-1', 'w1', { limit: 2 });
      expect(first.map((d) => d.id)).toEqual([entries[4]?.id, entries[3]?.id]);
      const last = first.at(-1) as DeliveryRecord;
      const next = await store.deliveries.list('team-1', 'w1', { limit: 10, after: { receivedAt: last.receivedAt, id: last.id } });
      expect(next.map((d) => d.id)).toEqual([entries[2]?.id, entries[1]?.id, entries[0]?.id]);
      expect(await store.deliveries.list('team-2', 'w1', { limit: 10 })).toEqual([]);
      expect(await store.deliveries.get('team-2', 'w1', entries[0]?.id as string)).toBeUndefined();
    });

    it('sweeps only entries older than the cutoff and beyond the newest N of each webhook', async () => {
      const store = current();
      for (let i = 0; i < 6; i++)
        await store.deliveries.log(makeDelivery({ receivedAt: at(i * 1000), status: 'Rejected (auth)', identity: null, payload: null }));
      for (let i = 0; i < 2; i++)
        await store.deliveries.log(
          makeDelivery({ webhookUid: 'w2', receivedAt: at(i), status: 'Rejected (auth)', identity: null, payload: null }),
        );
      // Older than at(3500): entries 0-3 of w1 and both of w2; the newest 3 per webhook stay.
      expect(await store.deliveries.sweep(at(3500), 3)).toBe(3);
      expect(await store.deliveries.list('team-1', 'w1', { limit: 50 })).toHaveLength(3);
      expect(await store.deliveries.list('team-1', 'w2', { limit: 50 })).toHaveLength(2);
      expect(await store.deliveries.sweep(at(3500), 3)).toBe(0);
    });
  });

  describe('deliveries with a rate admission', () => {
    const rate = (key: string, limit: number, ms: number) => ({ key, limit, windowMs: 60_000, now: at(ms) });

    it('accepts while the window has room, and past it writes nothing and says when a slot frees', async () => {
      const store = current();
      const key = `rate:${newId()}`;
      const run = makeRun({ source: 'WEBHOOK' });
      expect(await store.deliveries.accept({ delivery: makeDelivery({ identity: 'h:a' }), runs: [], admit: rate(key, 2, 0) })).toEqual({
        accepted: true,
      });
      // A duplicate takes a slot too: the rate is judged before the identity (docs/webhooks.md,
      // "Answers, log labels and limits": step 6 comes before step 8).
      const duplicate = makeDelivery({ identity: 'h:a', receivedAt: at(1000) });
      expect(await store.deliveries.accept({ delivery: duplicate, runs: [], admit: rate(key, 2, 1000) })).toMatchObject({
        accepted: false,
        duplicateOf: expect.any(String),
      });
      const refused = makeDelivery({ identity: 'h:b', receivedAt: at(2000) });
      expect(await store.deliveries.accept({ delivery: refused, runs: [{ run, attachments: [] }], admit: rate(key, 2, 2000) })).toEqual({
        accepted: false,
        rateLimited: true,
        retryAfterMs: 58_000,
      });
      expect(await store.deliveries.get('team-1', 'w1', refused.id)).toBeUndefined();
      expect(await store.runs.get(run.id)).toBeUndefined();
      expect(await store.rateLimits.peek({ key, windowMs: 60_000, now: at(2000) })).toEqual({ count: 2, retryAfterMs: 58_000 });
      // The first event leaves the window at at(60000).
      expect(await store.deliveries.accept({ delivery: refused, runs: [{ run, attachments: [] }], admit: rate(key, 2, 60_000) })).toEqual({
        accepted: true,
      });
      expect(await store.runs.get(run.id)).toEqual(run);
    });

    it('logs an entry only when its admission is granted', async () => {
      const store = current();
      const key = `auth:${newId()}`;
      const entry = () => makeDelivery({ status: 'Rejected (auth)', identity: null, payload: null, receivedAt: at(10) });
      const first = entry();
      expect(await store.deliveries.log(first, rate(key, 1, 10))).toEqual({ logged: true });
      const second = entry();
      expect(await store.deliveries.log(second, rate(key, 1, 10))).toEqual({ logged: false, rateLimited: true, retryAfterMs: 60_000 });
      expect(await store.deliveries.get('team-1', 'w1', first.id)).toMatchObject({ status: 'Rejected (auth)' });
      expect(await store.deliveries.get('team-1', 'w1', second.id)).toBeUndefined();
      // Without an admission it is always logged.
      expect(await store.deliveries.log(second)).toEqual({ logged: true });
    });

    it('is exact under concurrent accepts', async () => {
      const store = current();
      const key = `rate:${newId()}`;
      const outcomes = await Promise.all(
        Array.from({ length: 25 }, () => store.deliveries.accept({ delivery: makeDelivery(), runs: [], admit: rate(key, 20, 0) })),
      );
      expect(outcomes.filter((o) => o.accepted)).toHaveLength(20);
      expect(outcomes.filter((o) => 'rateLimited' in o)).toHaveLength(5);
      expect((await store.deliveries.list('team-1', 'w1', { limit: 50 })).filter((d) => d.status === 'Accepted')).toHaveLength(20);
    });
  });

  describe('deliveries awaiting evaluation with a rate admission', () => {
    it('is exact per key under many concurrent accepts, duplicates taking their slot', async () => {
      const store = current();
      const keys = [`rate:${newId()}`, `rate:${newId()}`];
      const hooks = [`w-${newId()}`, `w-${newId()}`];
      const attempts = Array.from({ length: 60 }, (_, i) => ({
        // Every third one repeats an identity: a duplicate takes a slot too (step 6 before step 8).
        delivery: makeDelivery({ webhookUid: hooks[i % 2], identity: `h:${i % 2}:${i % 3 === 2 ? 'again' : i}` }),
        admit: { key: keys[i % 2] as string, limit: 20, windowMs: 60_000, now: at(0) },
      }));
      const outcomes = await Promise.all(attempts.map((a) => store.deliveries.accept(a)));
      for (const [k, key] of keys.entries()) {
        const mine = outcomes.filter((_, i) => attempts[i]?.admit.key === key);
        expect(mine.filter((o) => !('rateLimited' in o))).toHaveLength(20);
        expect(mine.filter((o) => 'rateLimited' in o)).toEqual(
          Array.from({ length: 10 }, () => expect.objectContaining({ retryAfterMs: 60_000 })),
        );
        expect(await store.rateLimits.peek({ key, windowMs: 60_000, now: at(0) })).toEqual({ count: 20, retryAfterMs: 60_000 });
        const log = await store.deliveries.list('team-1', hooks[k] as string, { limit: 100 });
        expect(log).toHaveLength(20);
        expect(log.filter((d) => d.status === 'Accepted').length).toBe(mine.filter((o) => o.accepted).length);
      }
    });
  });

  describe('the context of a delivery', () => {
    it('reads the webhook, its secret, the failed-auth window and the automations in one step', async () => {
      const store = current();
      const secret = makeSecret({ name: `s-${newId().slice(0, 8)}` });
      const webhook = makeWebhook({ secretName: secret.name });
      expect(await store.webhooks.create({ webhook, secret, maxPerFactory: 20 })).toEqual({ created: true });
      const on = makeAutomation({ triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [webhook.uid] } }] });
      const later = makeAutomation({ createdAt: at(5), updatedAt: at(5), triggers: on.triggers });
      const off = makeAutomation({ enabled: false, triggers: on.triggers });
      for (const a of [later, on, off]) await store.automations.create(a);
      const authBudgetKey = `auth:${webhook.uid}`;
      await store.rateLimits.admit({ key: authBudgetKey, limit: 20, windowMs: 60_000, now: at(1000) });
      await store.rateLimits.admit({ key: authBudgetKey, limit: 20, windowMs: 60_000, now: at(2000) });

      const context = await store.deliveries.context({ webhookUid: webhook.uid, authBudgetKey, windowMs: 60_000, now: at(3000) });
      expect(context?.webhook).toEqual(webhook);
      expect(context?.secret).toEqual(secret);
      expect(context?.authFailures).toEqual({ count: 2, retryAfterMs: 58_000 });
      // The automations are the evaluation's to read, after the 202 (deliveries.selections).
      expect(context).not.toHaveProperty('automations');
      expect((await store.deliveries.selections([webhook.uid]))[0]?.automations).toEqual([on, later]);

      expect(
        await store.deliveries.context({ webhookUid: 'none', authBudgetKey: 'auth:none', windowMs: 60_000, now: at(0) }),
      ).toBeUndefined();
    });

    it("answers a batch's webhooks of several factories and teams each with the enabled automations selecting it, oldest first", async () => {
      const store = current();
      const f1 = `factory-${newId()}`;
      const f2 = `factory-${newId()}`;
      const f3 = `factory-${newId()}`;
      const webhook = (factoryUid: string, teamUid = 'team-1', deletedAt: string | null = null) =>
        makeWebhook({ factoryUid, teamUid, deletedAt, secretName: `s-${newId().slice(0, 8)}` });
      const [w1, w2, w3, w4, w5] = [webhook(f1), webhook(f1), webhook(f2), webhook(f3, 'team-2'), webhook(f1, 'team-1', at(1))] as const;
      for (const w of [w1, w2, w3, w4, w5]) await store.webhooks.create({ webhook: w, maxPerFactory: 20 });
      const selecting = (...uids: string[]) => [
        { provider: 'webhook' as const, event: 'received' as const, filter: { webhook_ids: uids } },
      ];
      const a1 = makeAutomation({ factoryUid: f1, createdAt: at(3), triggers: selecting(w1.uid, w2.uid) });
      const a2 = makeAutomation({ factoryUid: f1, createdAt: at(1), triggers: selecting(w2.uid) });
      const off = makeAutomation({ factoryUid: f1, enabled: false, triggers: selecting(w1.uid) });
      // Two triggers naming the same webhook: the automation still comes once.
      const a4 = makeAutomation({ factoryUid: f2, triggers: [...selecting(w3.uid), ...selecting(w3.uid)] });
      const a5 = makeAutomation({ factoryUid: f3, teamUid: 'team-2', triggers: selecting(w4.uid) });
      const a6 = makeAutomation({ factoryUid: f1, createdAt: at(2), triggers: selecting(w5.uid, w1.uid) });
      for (const a of [a1, a2, off, a4, a5, a6]) await store.automations.create(a);

      const batch = await store.deliveries.selections([w1.uid, w2.uid, w3.uid, w4.uid, w5.uid, 'none']);
      const byUid = new Map(batch.map((s) => [s.webhook.uid, s]));
      expect([...byUid.keys()].sort()).toEqual([w1.uid, w2.uid, w3.uid, w4.uid, w5.uid].sort());
      expect(byUid.get(w1.uid)).toEqual({ webhook: w1, automations: [a6, a1] });
      expect(byUid.get(w2.uid)).toEqual({ webhook: w2, automations: [a2, a1] });
      expect(byUid.get(w3.uid)).toEqual({ webhook: w3, automations: [a4] });
      expect(byUid.get(w4.uid)).toEqual({ webhook: w4, automations: [a5] });
      expect(byUid.get(w5.uid)).toEqual({ webhook: w5, automations: [a6] });
      for (const w of [w1, w2, w3, w4, w5]) expect(await store.deliveries.selections([w.uid])).toEqual([byUid.get(w.uid)]);
    });

    it('answers many concurrent reads each as it answers one read alone (a database store may batch them)', async () => {
      const store = current();
      const uids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const secret = makeSecret({ name: `s-${newId().slice(0, 8)}` });
        const webhook = makeWebhook({ secretName: secret.name, deletedAt: i === 4 ? at(1) : null });
        await store.webhooks.create({ webhook, ...(i === 3 ? {} : { secret }), maxPerFactory: 20 });
        for (let n = 0; n < i; n++)
          await store.rateLimits.admit({ key: `auth:${webhook.uid}`, limit: 20, windowMs: 60_000, now: at(n * 100) });
        uids.push(webhook.uid);
      }
      uids.push('none');
      const read = (i: number) => {
        const webhookUid = uids[i % uids.length] as string;
        return store.deliveries.context({ webhookUid, authBudgetKey: `auth:${webhookUid}`, windowMs: 60_000, now: at(1000 + (i % 4)) });
      };
      const alone = [];
      for (let i = 0; i < 48; i++) alone.push(await read(i));
      expect(alone.filter((c) => c === undefined)).toHaveLength(8);
      expect(alone.map((c) => c?.authFailures.count ?? -1).slice(0, 6)).toEqual([0, 1, 2, 3, 4, -1]);
      expect(await Promise.all(Array.from({ length: 48 }, (_, i) => read(i)))).toEqual(alone);
    });

    it('includes a deleted webhook, and answers a missing secret as undefined', async () => {
      const store = current();
      const webhook = makeWebhook({ secretName: 'never-stored', deletedAt: at(7) });
      await store.webhooks.create({ webhook, maxPerFactory: 20 });
      const context = await store.deliveries.context({ webhookUid: webhook.uid, authBudgetKey: 'auth:x', windowMs: 60_000, now: at(0) });
      expect(context).toEqual({ webhook, secret: undefined, authFailures: { count: 0, retryAfterMs: 0 } });
    });
  });

  describe('automations selecting a webhook', () => {
    it('lists the enabled automations whose triggers select the webhook', async () => {
      const store = current();
      const on = makeAutomation({ triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: ['w9', 'w1'] } }] });
      const off = makeAutomation({ enabled: false, triggers: on.triggers });
      const other = makeAutomation({ triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: ['w2'] } }] });
      for (const a of [on, off, other]) await store.automations.create(a);
      expect((await store.automations.listForWebhook('w1')).map((a) => a.id)).toEqual([on.id]);
      expect(await store.automations.listForWebhook('none')).toEqual([]);
    });
  });

  describe('rate limits', () => {
    it('admits exactly `limit` events in a sliding window and says when a slot frees', async () => {
      const store = current();
      const key = `k-${newId()}`;
      for (let i = 0; i < 3; i++)
        expect(await store.rateLimits.admit({ key, limit: 3, windowMs: 60_000, now: at(i * 1000) })).toEqual({ allowed: true });
      expect(await store.rateLimits.admit({ key, limit: 3, windowMs: 60_000, now: at(5000) })).toEqual({
        allowed: false,
        retryAfterMs: 55_000,
      });
      expect(await store.rateLimits.peek({ key, windowMs: 60_000, now: at(5000) })).toEqual({ count: 3, retryAfterMs: 55_000 });
      // The first event leaves the window at at(60000): one slot frees then, not before.
      expect((await store.rateLimits.admit({ key, limit: 3, windowMs: 60_000, now: at(59_999) })).allowed).toBe(false);
      expect(await store.rateLimits.admit({ key, limit: 3, windowMs: 60_000, now: at(60_000) })).toEqual({ allowed: true });
      expect(await store.rateLimits.peek({ key: 'unused', windowMs: 60_000, now: at(0) })).toEqual({ count: 0, retryAfterMs: 0 });
    });

    it('answers any sequence of admissions and peeks as a sliding log of the admitted events would', async () => {
      const store = current();
      // Two keys; times only move forward. A key's window is its limit's, the same on every call (a
      // store prunes what left it, so a later, longer window would not find those events).
      const step = fc.record({
        key: fc.constantFrom('a', 'b'),
        advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 400 }), fc.integer({ min: 900, max: 2500 })),
        peek: fc.boolean(),
      });
      await fc.assert(
        fc.asyncProperty(
          fc.array(step, { minLength: 1, maxLength: 40 }),
          fc.integer({ min: 1, max: 6 }),
          fc.constantFrom(1000, 2000),
          async (steps, limit, windowMs) => {
            const prefix = `p-${newId()}`;
            const log = new Map<string, number[]>();
            let now = 0;
            for (const { key, advanceMs, peek } of steps) {
              now += advanceMs;
              const events = (log.get(key) ?? []).filter((t) => t > now - windowMs);
              const retryAfterMs = events.length === 0 ? 0 : Math.max(0, (events[0] as number) + windowMs - now);
              const request = { key: `${prefix}-${key}`, windowMs, now: at(now) };
              if (peek) {
                expect(await store.rateLimits.peek(request)).toEqual({ count: events.length, retryAfterMs });
                continue;
              }
              const allowed = events.length < limit;
              if (allowed) events.push(now);
              log.set(key, events);
              expect(await store.rateLimits.admit({ ...request, limit })).toEqual(allowed ? { allowed } : { allowed, retryAfterMs });
            }
          },
        ),
        { numRuns: 25 },
      );
    });

    it('is exact under concurrent admits', async () => {
      const store = current();
      const key = `c-${newId()}`;
      const results = await Promise.all(
        Array.from({ length: 25 }, () => store.rateLimits.admit({ key, limit: 20, windowMs: 60_000, now: at(0) })),
      );
      expect(results.filter((r) => r.allowed)).toHaveLength(20);
    });
  });
}
