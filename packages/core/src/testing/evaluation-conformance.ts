import { describe, expect, it } from 'vitest';
import { webhookRun } from '../ingress/webhook-run.js';
import type { PendingDelivery } from '../store/ingress.js';
import type { CreateRunInput } from '../store/runs.js';
import type { Store } from '../store/store.js';
import { isoTime } from '../util/clock.js';
import { makeAutomation, makeWebhook } from './control-plane-conformance.js';
import { makeDelivery } from './ingress-conformance.js';

const T0 = Date.UTC(2026, 0, 1);
const at = (ms: number) => isoTime(T0 + ms);
const LEASE = 30_000;

/** `n` runs of a delivery, as the evaluator makes them (ingress/webhook-run.ts), attaching its payload. */
const runsOf = (delivery: PendingDelivery, n = 2): CreateRunInput[] => {
  const webhook = makeWebhook({ uid: delivery.webhookUid });
  return Array.from({ length: n }, () =>
    webhookRun({ automation: makeAutomation(), webhook, deliveryId: delivery.id, payload: delivery.payload, now: delivery.receivedAt }),
  );
};

/**
 * Accepted deliveries evaluated afterwards, exactly once (docs/stores.md, "The shape of the
 * interface"; docs/webhooks.md, "When runs start"): `accept` without runs, `claimEvaluations`, `completeEvaluations`.
 */
export function describeEvaluationConformance(current: () => Store): void {
  describe('delivery evaluation', () => {
    const accept = async (store: Store, o: Parameters<typeof makeDelivery>[0] = {}) => {
      const delivery = makeDelivery(o);
      expect(await store.deliveries.accept({ delivery })).toEqual({ accepted: true });
      return delivery;
    };
    const claim = (store: Store, ms: number, limit = 100) => store.deliveries.claimEvaluations({ limit, leaseMs: LEASE, now: at(ms) });

    it('leaves an accepted delivery for evaluation, and creates its runs once with the payload attached', async () => {
      const store = current();
      const delivery = await accept(store);
      const [claimed, ...more] = await claim(store, 1);
      expect(more).toEqual([]);
      expect(claimed?.id).toBe(delivery.id);
      expect([...(claimed?.payload ?? [])]).toEqual([123, 125, 10]);
      // Leased: no other claimer gets it meanwhile.
      expect(await claim(store, 2)).toEqual([]);
      const runs = runsOf(claimed as PendingDelivery);
      expect(await store.deliveries.completeEvaluations([{ deliveryId: delivery.id, runs }])).toEqual([delivery.id]);
      for (const { run } of runs) {
        expect(await store.runs.get(run.id)).toEqual(run);
        const attached = await store.runs.getAttachment('team-1', run.id, 'event-payload.json');
        expect([...(attached?.data ?? [])]).toEqual([123, 125, 10]);
      }
      // Evaluated: completing again creates nothing, and it is never claimed again.
      const again = runsOf(claimed as PendingDelivery);
      expect(await store.deliveries.completeEvaluations([{ deliveryId: delivery.id, runs: again }])).toEqual([]);
      for (const { run } of again) expect(await store.runs.get(run.id)).toBeUndefined();
      expect(await claim(store, LEASE * 10)).toEqual([]);
      // The log entry is as before: Accepted, with its payload.
      expect(await store.deliveries.get('team-1', 'w1', delivery.id)).toMatchObject({ status: 'Accepted', payload: delivery.payload });
    });

    it('reads an evaluated run back as a copy of its own: changing what was read changes nothing stored', async () => {
      const store = current();
      const delivery = await accept(store);
      const [claimed] = await claim(store, 1);
      const runs = runsOf(claimed as PendingDelivery, 1);
      const { run } = runs[0] as CreateRunInput;
      const expected = structuredClone(run);
      expect(await store.deliveries.completeEvaluations([{ deliveryId: delivery.id, runs }])).toEqual([delivery.id]);
      const read = (await store.runs.get(run.id)) as typeof run;
      expect(read).toEqual(expected);
      read.title = 'changed';
      read.creator.uid = 'changed';
      (read.config as Record<string, unknown>).model_id = 'changed';
      read.attachments.push({ file_name: 'x', mime_type: 'text/plain', size: 1 });
      read.ancestorRunIds.push('changed');
      if (read.trigger) read.trigger.delivery_id = 'changed';
      expect(await store.runs.get(run.id)).toEqual(expected);
      const attached = await store.runs.getAttachment('team-1', run.id, 'event-payload.json');
      attached?.data.fill(0);
      expect([...((await store.runs.getAttachment('team-1', run.id, 'event-payload.json'))?.data ?? [])]).toEqual([123, 125, 10]);
    });

    it('claims nothing for a duplicate, a rejected entry, or a delivery accepted with its runs (a resend)', async () => {
      const store = current();
      const first = await accept(store, { identity: 'h:dup' });
      expect(await store.deliveries.accept({ delivery: makeDelivery({ identity: 'h:dup' }) })).toMatchObject({ accepted: false });
      await store.deliveries.log(makeDelivery({ status: 'Rejected (auth)', identity: null, payload: null }));
      const resent = makeDelivery();
      expect(await store.deliveries.accept({ delivery: resent, runs: [] })).toEqual({ accepted: true });
      expect((await claim(store, 1)).map((d) => d.id)).toEqual([first.id]);
    });

    it('claims the oldest first, at most `limit`, only those received by `now`', async () => {
      const store = current();
      const ds = [];
      for (let i = 0; i < 5; i++) ds.push(await accept(store, { receivedAt: at(i * 10) }));
      expect((await claim(store, 25, 2)).map((d) => d.id)).toEqual([ds[0]?.id, ds[1]?.id]);
      expect((await claim(store, 25, 10)).map((d) => d.id)).toEqual([ds[2]?.id]);
      expect((await claim(store, 100, 10)).map((d) => d.id)).toEqual([ds[3]?.id, ds[4]?.id]);
    });

    it('gives a delivery whose claimer died to another once the lease ends, and still creates its runs once', async () => {
      const store = current();
      const delivery = await accept(store);
      const [first] = await claim(store, 1);
      expect(await claim(store, LEASE)).toEqual([]);
      // The first claimer is gone (SIGKILL): after its lease another takes the delivery.
      const [second] = await claim(store, 1 + LEASE);
      expect(second?.id).toBe(delivery.id);
      const late = runsOf(first as PendingDelivery);
      const taken = runsOf(second as PendingDelivery);
      expect(await store.deliveries.completeEvaluations([{ deliveryId: delivery.id, runs: taken }])).toEqual([delivery.id]);
      // The first was only slow: its completion comes after, and creates nothing.
      expect(await store.deliveries.completeEvaluations([{ deliveryId: delivery.id, runs: late }])).toEqual([]);
      for (const { run } of taken) expect(await store.runs.get(run.id)).toBeDefined();
      for (const { run } of late) expect(await store.runs.get(run.id)).toBeUndefined();
    });

    it('hands each delivery to one of many concurrent claimers', async () => {
      const store = current();
      const ids = new Set<string>();
      for (let i = 0; i < 30; i++) ids.add((await accept(store, { receivedAt: at(i) })).id);
      const seen: string[] = [];
      await Promise.all(
        Array.from({ length: 6 }, async () => {
          for (;;) {
            const got = await claim(store, 100, 4);
            if (got.length === 0) return;
            seen.push(...got.map((d) => d.id));
          }
        }),
      );
      expect(seen.length).toBe(30);
      expect(new Set(seen)).toEqual(ids);
    });

    it('creates the runs of one delivery completed by concurrent evaluators exactly once', async () => {
      const store = current();
      const delivery = await accept(store);
      const [claimed] = await claim(store, 1);
      const attempts = Array.from({ length: 8 }, () => runsOf(claimed as PendingDelivery));
      const results = await Promise.all(attempts.map((runs) => store.deliveries.completeEvaluations([{ deliveryId: delivery.id, runs }])));
      expect(results.filter((r) => r.length === 1)).toHaveLength(1);
      const created = [];
      for (const runs of attempts) for (const { run } of runs) if (await store.runs.get(run.id)) created.push(run.id);
      expect(created).toHaveLength(2);
    });

    it('completes a batch in one step, skipping those evaluated already', async () => {
      const store = current();
      const ds = [];
      for (let i = 0; i < 5; i++) ds.push(await accept(store, { receivedAt: at(i) }));
      const claimed = await claim(store, 10);
      expect(claimed).toHaveLength(5);
      const [firstClaimed] = claimed;
      await store.deliveries.completeEvaluations([{ deliveryId: ds[0]?.id as string, runs: [] }]);
      const batch = claimed.map((d) => ({ deliveryId: d.id, runs: runsOf(d, 1) }));
      const done = await store.deliveries.completeEvaluations(batch);
      expect(new Set(done)).toEqual(new Set(ds.slice(1).map((d) => d.id)));
      for (const { deliveryId, runs } of batch) {
        const exists = (await store.runs.get(runs[0]?.run.id as string)) !== undefined;
        expect(exists).toBe(deliveryId !== firstClaimed?.id);
      }
    });

    it('keeps a delivery awaiting evaluation through retention, and its runs their payload once it is swept', async () => {
      const store = current();
      const delivery = await accept(store, { receivedAt: at(0) });
      expect(await store.deliveries.sweep(at(1000), 0)).toBe(0);
      const [claimed] = await claim(store, 1);
      expect(claimed?.id).toBe(delivery.id);
      const runs = runsOf(claimed as PendingDelivery);
      await store.deliveries.completeEvaluations([{ deliveryId: delivery.id, runs }]);
      expect(await store.deliveries.sweep(at(1000), 0)).toBe(1);
      expect(await store.deliveries.get('team-1', 'w1', delivery.id)).toBeUndefined();
      // The runs outlive the log, each with the payload byte-exact.
      for (const { run } of runs) {
        const attached = await store.runs.getAttachment('team-1', run.id, 'event-payload.json');
        expect(attached).toMatchObject({ fileName: 'event-payload.json', mimeType: 'application/json' });
        expect([...(attached?.data ?? [])]).toEqual([123, 125, 10]);
      }
    });

    it('reads the webhooks of a batch with the enabled automations selecting each, in one step', async () => {
      const store = current();
      const [a, b] = [makeWebhook(), makeWebhook({ enabled: false })] as const;
      for (const webhook of [a, b]) expect((await store.webhooks.create({ webhook, maxPerFactory: 20 })).created).toBe(true);
      const selecting = (...uids: string[]) => [
        { provider: 'webhook' as const, event: 'received' as const, filter: { webhook_ids: uids } },
      ];
      const both = makeAutomation({ name: 'both', triggers: selecting(a.uid, b.uid) });
      const onlyA = makeAutomation({ name: 'only a', triggers: selecting(a.uid) });
      const off = makeAutomation({ name: 'off', enabled: false, triggers: selecting(a.uid) });
      for (const automation of [both, onlyA, off]) await store.automations.create(automation);
      const found = await store.deliveries.selections([a.uid, b.uid, 'no-such-webhook']);
      const byUid = new Map(found.map((s) => [s.webhook.uid, s]));
      expect([...byUid.keys()].sort()).toEqual([a.uid, b.uid].sort());
      expect(byUid.get(a.uid)?.webhook).toEqual(a);
      expect(
        byUid
          .get(a.uid)
          ?.automations.map((x) => x.id)
          .sort(),
      ).toEqual([both.id, onlyA.id].sort());
      // A disabled webhook is returned as it is: the evaluator decides.
      expect(byUid.get(b.uid)?.webhook.enabled).toBe(false);
      expect(byUid.get(b.uid)?.automations.map((x) => x.id)).toEqual([both.id]);
      expect(await store.deliveries.selections([])).toEqual([]);
    });

    it('signals an accepted delivery on the notifications port', async () => {
      const store = current();
      if (!store.notifications) return;
      const heard: string[] = [];
      let done = () => {};
      const got = new Promise<void>((resolve) => {
        done = resolve;
      });
      const stop = await store.notifications.listen((n) => {
        if (n.type !== 'delivery.accepted') return;
        heard.push(n.deliveryId);
        done();
      });
      try {
        const delivery = await accept(store);
        await got;
        expect(heard).toEqual([delivery.id]);
      } finally {
        await stop();
      }
    });
  });
}
