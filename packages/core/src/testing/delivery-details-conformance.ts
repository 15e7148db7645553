import { describe, expect, it } from 'vitest';
import { MASKED_VALUE } from '../ingress/records.js';
import { webhookRun } from '../ingress/webhook-run.js';
import type { PendingDelivery } from '../store/ingress.js';
import type { Store } from '../store/store.js';
import { isoTime } from '../util/clock.js';
import { makeAutomation, makeWebhook } from './control-plane-conformance.js';
import { makeDelivery } from './ingress-conformance.js';

const T0 = Date.UTC(2026, 0, 1);
const at = (ms: number) => isoTime(T0 + ms);

const request = {
  headers: [
    ['content-type', 'application/json'],
    ['user-agent', 'GitHub-Hookshot/1 "quoted" \\ é'],
    ['x-hub-signature-256', MASKED_VALUE],
  ] as const,
  omittedHeaders: 2,
  remoteAddress: '::ffff:127.0.0.1',
};

/**
 * What a delivery's page reads back (docs/webhooks.md, "What a delivery keeps"): the request an
 * accepted delivery keeps, as given, and the runs its evaluation started, from none while it
 * awaits evaluation to the list (empty when it matched nothing).
 */
export function describeDeliveryDetailsConformance(current: () => Store): void {
  describe('delivery details', () => {
    const runsOf = (delivery: PendingDelivery, n: number) =>
      Array.from({ length: n }, () =>
        webhookRun({
          automation: makeAutomation(),
          webhook: makeWebhook({ uid: delivery.webhookUid }),
          deliveryId: delivery.id,
          payload: delivery.payload,
          now: delivery.receivedAt,
        }),
      );

    it('keeps an accepted delivery’s request, and its run ids once evaluated: none while pending, [] for nothing matched', async () => {
      const store = current();
      const webhookUid = `w-${makeDelivery().id}`;
      const matched = makeDelivery({ webhookUid, request, receivedAt: at(1) });
      const unmatched = makeDelivery({ webhookUid, receivedAt: at(2) });
      // Accepted together (a database store may batch them) and alone, the request comes back as given.
      const outcomes = await Promise.all([matched, unmatched].map((delivery) => store.deliveries.accept({ delivery })));
      expect(outcomes).toEqual([{ accepted: true }, { accepted: true }]);
      const pending = await store.deliveries.get('team-1', webhookUid, matched.id);
      expect(pending?.request).toEqual(request);
      expect(pending?.runIds).toBeUndefined();
      expect((await store.deliveries.get('team-1', webhookUid, unmatched.id))?.request).toBeUndefined();

      const claimed = await store.deliveries.claimEvaluations({ limit: 100, leaseMs: 30_000, now: at(10) });
      const mine = claimed.filter((d) => d.webhookUid === webhookUid).sort((a, b) => (a.receivedAt < b.receivedAt ? -1 : 1));
      expect(mine.map((d) => d.id)).toEqual([matched.id, unmatched.id]);
      const runs = runsOf(mine[0] as PendingDelivery, 2);
      expect(
        (
          await store.deliveries.completeEvaluations([
            { deliveryId: matched.id, runs },
            { deliveryId: unmatched.id, runs: [] },
          ])
        ).sort(),
      ).toEqual([matched.id, unmatched.id].sort());
      const done = await store.deliveries.get('team-1', webhookUid, matched.id);
      expect(done?.runIds).toEqual(runs.map(({ run }) => run.id));
      expect(done?.request).toEqual(request);
      expect((await store.deliveries.get('team-1', webhookUid, unmatched.id))?.runIds).toEqual([]);
      // The list and `find` answer the same.
      const listed = await store.deliveries.list('team-1', webhookUid, { limit: 10 });
      expect(listed.map((d) => [d.id, d.runIds, d.request])).toEqual([
        [unmatched.id, [], undefined],
        [matched.id, runs.map(({ run }) => run.id), request],
      ]);
      expect((await store.deliveries.find('team-1', matched.id))?.runIds).toEqual(runs.map(({ run }) => run.id));
    });

    it('gives a resend its run ids at once, a duplicate and a rejected entry neither request nor runs', async () => {
      const store = current();
      const webhookUid = `w-${makeDelivery().id}`;
      const resend = makeDelivery({ webhookUid, identity: 'resend:a:b' });
      const runs = runsOf({ ...resend, payload: resend.payload as Uint8Array }, 1);
      expect(await store.deliveries.accept({ delivery: resend, runs })).toEqual({ accepted: true });
      expect((await store.deliveries.get('team-1', webhookUid, resend.id))?.runIds).toEqual(runs.map(({ run }) => run.id));

      const original = makeDelivery({ webhookUid, identity: 'h:dup', request });
      const duplicate = makeDelivery({ webhookUid, identity: 'h:dup', request, receivedAt: at(5) });
      expect(await store.deliveries.accept({ delivery: original })).toEqual({ accepted: true });
      expect(await store.deliveries.accept({ delivery: duplicate })).toEqual({ accepted: false, duplicateOf: original.id });
      const dup = await store.deliveries.get('team-1', webhookUid, duplicate.id);
      expect(dup?.status).toBe('Duplicate');
      expect(dup?.request).toBeUndefined();
      expect(dup?.runIds).toBeUndefined();

      const rejected = makeDelivery({ webhookUid, status: 'Rejected (auth)', identity: null, payload: null, request });
      await store.deliveries.log(rejected);
      const entry = await store.deliveries.get('team-1', webhookUid, rejected.id);
      expect(entry?.request).toBeUndefined();
      expect(entry?.runIds).toBeUndefined();
    });
  });
}
