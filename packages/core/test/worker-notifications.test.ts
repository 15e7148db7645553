import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createAgentRunHandler,
  type ExecutionContext,
  type Executor,
  type FollowupRecord,
  type Notification,
  type Notifications,
  type Store,
  type Worker,
} from '../src/index.js';

// The worker hears the store's notifications (docs/executors.md, docs/stores.md "Notifications"):
// with polls and heartbeats an hour apart, only a notification can make it act within a test.
const principal = testPrincipal();
const HOUR = 3_600_000;

/** An executor that runs until aborted, keeping each execution's context and follow-ups. */
function heldExecutor() {
  const calls: { runId: string; ctx: ExecutionContext; followups: FollowupRecord[] }[] = [];
  const executor: Executor = {
    execute(input, ctx) {
      const call = { runId: input.run.run_id, ctx, followups: [] as FollowupRecord[] };
      ctx.onFollowup((f) => call.followups.push(f));
      calls.push(call);
      return new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
    },
  };
  return { executor, calls };
}

/** Resolves when `check` holds (looked at every few ms; the test's timeout bounds it). */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 5));
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('worker signals', () => {
  const workers: Worker[] = [];
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.stop();
  });

  it("acts on the store's notifications: a run created elsewhere is claimed, a cancel aborts it and a follow-up reaches it at once", async () => {
    const store = createMemoryStore();
    // Two handlers over one store: what the second does reaches the worker only through the
    // store, as from another process (each handler has its own events).
    const here = createAgentRunHandler({ store });
    const elsewhere = createAgentRunHandler({ store });
    const { executor, calls } = heldExecutor();
    const worker = here.app.worker({ executor, pollIntervalMs: HOUR, heartbeatMs: HOUR, leaseMs: 2 * HOUR });
    workers.push(worker);
    worker.start();

    const runId = (await elsewhere.service.create(principal, { prompt: 'from elsewhere' })).body.run_id;
    await until(() => calls.length === 1);
    expect(calls[0]?.runId).toBe(runId);
    await until(async () => (await store.runs.get(runId))?.state === 'INPROGRESS');

    await elsewhere.service.followup(principal, runId, { message: 'and this' });
    await until(() => (calls[0]?.followups.length ?? 0) === 1);
    expect(calls[0]?.followups.map((f) => f.message)).toEqual(['and this']);

    await elsewhere.service.cancel(principal, runId);
    await until(() => calls[0]?.ctx.signal.aborted === true);
    expect(String(calls[0]?.ctx.signal.reason)).toContain('CANCELLED');
    expect((await store.runs.get(runId))?.state).toBe('CANCELLED');
  });

  it('on resync, polls at once and looks at its running runs (notifications may have been missed)', async () => {
    const store = createMemoryStore();
    // Notifications the test sends by hand: the run.queued of the create is lost.
    const listeners = new Set<(n: Notification) => void>();
    const notifications: Notifications = {
      async listen(listener) {
        listeners.add(listener);
        return async () => void listeners.delete(listener);
      },
    };
    const silent: Store = { ...store, notifications };
    const handler = createAgentRunHandler({ store: silent });
    const { executor, calls } = heldExecutor();
    const worker = handler.app.worker({ executor, pollIntervalMs: HOUR, heartbeatMs: HOUR, leaseMs: 2 * HOUR });
    workers.push(worker);
    worker.start();
    await worker.idle();
    await handler.service.create(principal, { prompt: 'unannounced' });
    await settle();
    expect(calls).toHaveLength(0);
    expect(listeners.size).toBe(2); // the worker, and the evaluator of deliveries that runs with it
    for (const l of listeners) l({ type: 'resync' });
    await until(() => calls.length === 1);
    // A follow-up and a cancel whose notifications are lost too: the next resync finds both.
    const runId = calls[0]?.runId as string;
    await until(async () => (await store.runs.get(runId))?.state === 'INPROGRESS');
    await handler.service.followup(principal, runId, { message: 'unannounced too' });
    for (const l of listeners) l({ type: 'resync' });
    await until(() => (calls[0]?.followups.length ?? 0) === 1);
    expect(calls[0]?.ctx.signal.aborted).toBe(false);
    await handler.service.cancel(principal, runId);
    await settle();
    expect(calls[0]?.ctx.signal.aborted).toBe(false);
    for (const l of listeners) l({ type: 'resync' });
    await until(() => calls[0]?.ctx.signal.aborted === true);
  });

  it('stops listening when stopped', async () => {
    const store = createMemoryStore();
    let listening = 0;
    const notifications: Notifications = {
      async listen(listener) {
        listening++;
        const stop = await (store.notifications as Notifications).listen(listener);
        return async () => {
          listening--;
          await stop();
        };
      },
    };
    const handler = createAgentRunHandler({ store: { ...store, notifications } });
    const worker = handler.app.worker({ executor: heldExecutor().executor, pollIntervalMs: HOUR });
    worker.start();
    await settle();
    expect(listening).toBe(2); // the worker, and the evaluator of deliveries that runs with it
    await worker.stop();
    expect(listening).toBe(0);
  });

  it("falls back to its process's events when the store has no notifications", async () => {
    const store: Store = { ...createMemoryStore(), notifications: undefined };
    const handler = createAgentRunHandler({ store });
    const { executor, calls } = heldExecutor();
    const worker = handler.app.worker({ executor, pollIntervalMs: HOUR, heartbeatMs: HOUR, leaseMs: 2 * HOUR });
    workers.push(worker);
    worker.start();
    await worker.idle();
    const runId = (await handler.service.create(principal, { prompt: 'here' })).body.run_id;
    await until(() => calls.length === 1);
    expect(calls.map((c) => c.runId)).toEqual([runId]);
    await handler.service.cancel(principal, runId);
    expect(calls[0]?.ctx.signal.aborted).toBe(true);
  });
});

describe('claims in parallel', () => {
  it('runs heard queued are claimed by several claims at once, up to the free places (docs/executors.md, "Statements per run")', async () => {
    const store = createMemoryStore();
    // Every claim waits until the test lets it answer: what is in flight at once shows.
    let inFlight = 0;
    let most = 0;
    const gates: (() => void)[] = [];
    const claimNext = store.runs.claimNext.bind(store.runs);
    const gated: Store = {
      ...store,
      runs: {
        ...store.runs,
        async claimNext(input) {
          inFlight++;
          most = Math.max(most, inFlight);
          await new Promise<void>((resolve) => gates.push(resolve));
          inFlight--;
          return claimNext(input);
        },
      },
    };
    const here = createAgentRunHandler({ store: gated });
    const elsewhere = createAgentRunHandler({ store });
    const { executor, calls } = heldExecutor();
    const worker = here.app.worker({ executor, concurrency: 3, pollIntervalMs: HOUR, heartbeatMs: HOUR, leaseMs: 2 * HOUR });
    worker.start();
    try {
      // The start's first poll: one claim, answered empty.
      await until(() => gates.length === 1);
      gates.shift()?.();
      await worker.idle();
      for (let i = 0; i < 5; i++) await elsewhere.service.create(principal, { prompt: `run ${i}` });
      // Five heard, three places: three claims at once, never more.
      await until(() => gates.length === 3);
      await settle();
      expect(inFlight).toBe(3);
      for (const open of gates.splice(0)) open();
      await until(() => calls.length === 3);
      await settle();
      expect(most).toBe(3);
      expect(inFlight).toBe(0);
    } finally {
      for (const open of gates.splice(0)) open();
      await worker.stop();
    }
  });

  it('a backlog heard keeps its claims going at once after the notifications stop, until a claim finds the queue empty', async () => {
    const store = createMemoryStore();
    let inFlight = 0;
    let gating = true;
    const gates: (() => void)[] = [];
    const claimNext = store.runs.claimNext.bind(store.runs);
    const gated: Store = {
      ...store,
      runs: {
        ...store.runs,
        async claimNext(input) {
          inFlight++;
          if (gating) await new Promise<void>((resolve) => gates.push(resolve));
          inFlight--;
          return claimNext(input);
        },
      },
    };
    const here = createAgentRunHandler({ store: gated });
    const elsewhere = createAgentRunHandler({ store });
    // Each execution runs until the test finishes it.
    const finishes: (() => void)[] = [];
    const executor: Executor = {
      execute: () => new Promise((resolve) => finishes.push(() => resolve({ status: 'succeeded' }))),
    };
    const worker = here.app.worker({ executor, concurrency: 3, pollIntervalMs: HOUR, heartbeatMs: HOUR, leaseMs: 2 * HOUR });
    worker.start();
    try {
      await until(() => gates.length === 1);
      gates.shift()?.();
      await worker.idle();
      for (let i = 0; i < 7; i++) await elsewhere.service.create(principal, { prompt: `run ${i}` });
      // Three places: three claims, then three executions hold them all.
      await until(() => gates.length === 3);
      for (const open of gates.splice(0)) open();
      await until(() => finishes.length === 3);
      await settle();
      expect(inFlight).toBe(0);
      // No notification comes any more; the places free up: the backlog is claimed three at once again.
      for (const finish of finishes.splice(0)) finish();
      await until(() => gates.length === 3);
      await settle();
      expect(inFlight).toBe(3);
      for (const open of gates.splice(0)) open();
      await until(() => finishes.length === 3);
      for (const finish of finishes.splice(0)) finish();
      // One run left: claimed, and the other claims find the queue empty.
      await until(() => gates.length > 0);
      for (;;) {
        await settle();
        if (gates.length === 0 && inFlight === 0) break;
        for (const open of gates.splice(0)) open();
      }
      await until(() => finishes.length === 1);
      for (const finish of finishes.splice(0)) finish();
      await until(async () => (await store.runs.queueStats?.())?.depth === 0);
    } finally {
      gating = false;
      for (const open of gates.splice(0)) open();
      for (const finish of finishes.splice(0)) finish();
      await worker.stop();
    }
  });
});
