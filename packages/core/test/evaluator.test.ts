import { makeAutomation, makeDelivery, makeWebhook } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEvents } from '../src/events.js';
import { createDeliveryRuns } from '../src/ingress/delivery-runs.js';
import { createEvaluator, type Evaluator, type EvaluatorOptions } from '../src/ingress/evaluation/evaluator.js';
import type { RunItem } from '../src/models/run.js';
import type { Store } from '../src/store/store.js';

// The evaluation loop (ingress/evaluation/evaluator.ts; docs/webhooks.md, "When runs start"):
// woken by a delivery.accepted notification, polling when there is none, backing off on store
// errors, and claiming nothing once stopped.

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);

async function world(store: Store = createMemoryStore()) {
  const webhook = makeWebhook();
  await store.webhooks.create({ webhook, maxPerFactory: 20 });
  const automation = makeAutomation({ triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [webhook.uid] } }] });
  await store.automations.create(automation);
  const accept = async () => {
    const delivery = makeDelivery({ webhookUid: webhook.uid, receivedAt: new Date(T0).toISOString() });
    expect(await store.deliveries.accept({ delivery })).toEqual({ accepted: true });
    return delivery.id;
  };
  const runsOf = async (deliveryId: string) =>
    (await store.runs.list({ teamUid: 'team-1', filter: {}, limit: 50, sortBy: 'created_at', order: 'desc' })).filter(
      (r) => r.trigger?.delivery_id === deliveryId,
    );
  return { store, webhook, automation, accept, runsOf };
}

describe('the evaluator', () => {
  const started: Evaluator[] = [];
  const evaluator = (store: Store, o: Partial<EvaluatorOptions> = {}) => {
    const errors: unknown[] = [];
    const e = createEvaluator({
      store,
      deliveryRuns: createDeliveryRuns({ onError: (error) => errors.push(error) }),
      events: createEvents(),
      clock: { now: () => T0 + 1 },
      onError: (error) => errors.push(error),
      ...o,
    });
    started.push(e);
    return { e, errors };
  };
  afterEach(async () => {
    for (const e of started.splice(0)) await e.close();
  });

  it('makes the runs of a delivery accepted while it sleeps, woken by the store, not by its poll', async () => {
    const w = await world();
    const { e, errors } = evaluator(w.store, { pollMs: HOUR });
    e.start();
    await vi.waitFor(async () =>
      expect(await w.store.deliveries.claimEvaluations({ limit: 1, leaseMs: 1, now: new Date(T0).toISOString() })).toEqual([]),
    );
    const id = await w.accept();
    await vi.waitFor(async () => expect(await w.runsOf(id)).toHaveLength(1));
    expect(errors).toEqual([]);
  });

  it('finds a delivery by polling when no notification comes', async () => {
    const w = await world({ ...createMemoryStore(), notifications: undefined });
    const { e } = evaluator(w.store, { pollMs: 10 });
    e.start();
    const id = await w.accept();
    await vi.waitFor(async () => expect(await w.runsOf(id)).toHaveLength(1));
  });

  it('reports a failing store and tries again, backing off, until it answers', async () => {
    const w = await world();
    const claim = w.store.deliveries.claimEvaluations.bind(w.store.deliveries);
    let failures = 2;
    w.store.deliveries.claimEvaluations = async (input) => {
      if (failures > 0) {
        failures--;
        throw new Error('the database is away');
      }
      return claim(input);
    };
    const id = await w.accept();
    const { e, errors } = evaluator(w.store, { pollMs: HOUR, retryMs: 5 });
    e.start();
    await vi.waitFor(async () => expect(await w.runsOf(id)).toHaveLength(1));
    expect(errors.map((x) => (x as Error).message)).toEqual(['the database is away', 'the database is away']);
  });

  it('claims nothing once stopped; drain still evaluates what waits', async () => {
    const w = await world();
    let claims = 0;
    const claim = w.store.deliveries.claimEvaluations.bind(w.store.deliveries);
    w.store.deliveries.claimEvaluations = (input) => {
      claims++;
      return claim(input);
    };
    const { e } = evaluator(w.store, { pollMs: 5 });
    e.start();
    await vi.waitFor(() => expect(claims).toBeGreaterThan(0));
    await e.stop();
    const after = claims;
    const id = await w.accept();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(claims).toBe(after);
    expect(await w.runsOf(id)).toHaveLength(0);
    expect(await e.drain()).toBe(1);
    expect(await w.runsOf(id)).toHaveLength(1);
  });

  it('starts nothing for a delivery whose webhook was disabled after its accept', async () => {
    const w = await world();
    const id = await w.accept();
    await w.store.webhooks.update('team-1', 'factory-1', w.webhook.uid, { enabled: false }, new Date(T0).toISOString());
    const { e } = evaluator(w.store);
    expect(await e.drain()).toBe(1);
    expect(await w.runsOf(id)).toHaveLength(0);
  });

  it('tells run.created listeners a run of their own: changing it leaves the stored run as it was', async () => {
    // The memory store keeps an evaluated delivery's runs as handed over (DeliveryStore.completeEvaluations).
    const w = await world();
    const events = createEvents();
    const told: RunItem[] = [];
    events.on('run.created', ({ run }) => {
      told.push(structuredClone(run));
      run.state = 'FAILED';
      if (run.creator) run.creator.uid = 'changed';
      (run.agent_config as Record<string, unknown>).model_id = 'changed';
      if (run.trigger) run.trigger.delivery_id = 'changed';
      for (const a of run.attachments ?? []) a.file_name = 'changed';
    });
    const { e, errors } = evaluator(w.store, { events });
    const ids = [await w.accept(), await w.accept()];
    expect(await e.drain()).toBe(2);
    expect(errors).toEqual([]);
    expect(told.map((r) => r.state)).toEqual(['QUEUED', 'QUEUED']);
    for (const [i, id] of ids.entries()) {
      const [run] = await w.runsOf(id);
      expect(run).toMatchObject({ state: 'QUEUED', creator: { uid: `automation:${w.automation.id}` }, trigger: { delivery_id: id } });
      expect(run?.config).toEqual(w.automation.config);
      expect(run?.attachments.map((a) => a.file_name)).toEqual(['event-payload.json']);
      expect(told[i]).toMatchObject({ run_id: run?.id, creator: run?.creator, agent_config: run?.config, trigger: run?.trigger });
    }
  });

  it('lets the event loop turn within a large batch: a callback queued before it runs before its last delivery is decided', async () => {
    const w = await world();
    for (let i = 0; i < 64; i++) await w.accept();
    const order: string[] = [];
    const decide = createDeliveryRuns({ onError: () => {} });
    const { e } = evaluator(w.store, {
      batchSize: 100,
      deliveryRuns: async (input) => {
        order.push('decided');
        return decide(input);
      },
    });
    // setImmediate runs at the loop's next turn whatever the clock says; a setTimeout(0) waits for
    // a millisecond to pass, which a fast batch may never give it.
    setImmediate(() => order.push('turn'));
    expect(await e.drain()).toBe(64);
    const turn = order.indexOf('turn');
    expect(turn).toBeGreaterThan(0);
    expect(turn).toBeLessThan(order.length - 1);
  });
});
