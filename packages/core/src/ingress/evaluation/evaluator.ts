import type { AgentRunEvents } from '../../events.js';
import { createLoop, type LoopHealth } from '../../runner/loop.js';
import type { Store } from '../../store/store.js';
import { type Clock, isoTime } from '../../util/clock.js';
import type { DeliveryRuns } from '../delivery-runs.js';
import { evaluateBatch } from './evaluate-batch.js';
import { createParsedPayloads } from './parsed-payloads.js';

export interface EvaluatorOptions {
  store: Store;
  deliveryRuns: DeliveryRuns;
  events: AgentRunEvents;
  clock: Clock;
  onError: (error: unknown) => void;
  onEvaluated?: ((deliveryId: string, runIds: readonly string[]) => void) | undefined;
  /** Deliveries claimed (and evaluated in one store step) at a time. Default 100. */
  batchSize?: number;
  /** How long a claim holds: a process that dies evaluating leaves its deliveries to others after it. Default 30 s. */
  leaseMs?: number;
  /** The longest the loop sleeps between looks when nothing wakes it (notifications can be lost). Default 1 s. */
  pollMs?: number;
  /** After a store error the loop waits this long, doubled per failure up to `pollMs * 10`. Default 100 ms. */
  retryMs?: number;
}

/** How long a loop that just evaluated waits before it looks again (well inside the 50 ms of docs/webhooks.md). */
const COALESCE_MS = 10;
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The evaluation of accepted deliveries (docs/webhooks.md, "When runs start"). Started and stopped
 * with this process's workers (app/create-agent-run.ts), or alone in a process without one.
 */
export interface Evaluator {
  /** Begin the loop (again after a stop); each `start` is paired with a `stop`, and the loop runs while any is open. */
  start(): void;
  /** Close one `start`; the last resolves once a pass under way has ended and the loop has stopped. */
  stop(): Promise<void>;
  /** Stop the loop whatever the `start`s open (the agentrun is closing); resolves once it has stopped. */
  close(): Promise<void>;
  /** A delivery was accepted in this process: look now rather than at the next poll. */
  wake(): void;
  /**
   * The ingress of this process accepted `deliveryId`, parsing its `bytes`-long body into `value`:
   * kept (bounded) so that evaluating it here does not parse it again, then `wake`.
   */
  accepted(deliveryId: string, value: unknown, bytes: number): void;
  /**
   * Evaluate every delivery that can be claimed now, until none is left (a pass under way in
   * the loop finishes first). Resolves with how many this call evaluated. For tests and hosts
   * that drive evaluation themselves.
   */
  drain(): Promise<number>;
  /** How its passes go (runner/loop.ts), for the health report. */
  health(): LoopHealth;
}

/**
 * The loop (the runner's, runner/loop.ts): claim a bounded batch, evaluate it (evaluate-batch.ts),
 * and go on at once while a batch comes back full; otherwise sleep until woken (a `delivery.accepted` notification from any
 * process sharing the store, an accept in this one, a `resync`) or until `pollMs` has passed, the
 * fallback that makes evaluation certain when notifications are lost. A store error is reported
 * and retried with backoff; the claim's lease makes a half-done batch safe to take again, and the
 * store creates a delivery's runs once whoever completes it.
 */
export function createEvaluator(options: EvaluatorOptions): Evaluator {
  const { store, clock } = options;
  const batchSize = options.batchSize ?? 100;
  const leaseMs = options.leaseMs ?? 30_000;
  const pollMs = options.pollMs ?? 1000;
  const retryMs = options.retryMs ?? 100;
  const deps = {
    store,
    deliveryRuns: options.deliveryRuns,
    events: options.events,
    onError: options.onError,
    onEvaluated: options.onEvaluated,
    parsed: createParsedPayloads(),
  };

  /** Each `start` not yet paired with a `stop`: the loop runs while any is open. */
  let starts = 0;

  /** One claim and its evaluation: how many deliveries it claimed. */
  async function pass(): Promise<number> {
    const claimed = await store.deliveries.claimEvaluations({ limit: batchSize, leaseMs, now: isoTime(clock.now()) });
    if (claimed.length > 0) await evaluateBatch(deps, claimed);
    // After a pass that found work but not a full batch, a moment before the next: under load a
    // pass then takes what arrived meanwhile in one claim and one write, rather than a pass per
    // delivery (a wake-up meanwhile runs right after). Idle, the first delivery is claimed at once.
    if (claimed.length > 0 && claimed.length < batchSize) await delay(COALESCE_MS);
    return claimed.length;
  }

  const loop = createLoop<number>({
    pass,
    // A full batch: a backlog, go on at once. Otherwise wait to be woken, or poll.
    nextMs: (claimed) => (claimed >= batchSize ? 0 : pollMs),
    backoff: { baseMs: retryMs, maxMs: pollMs * 10 },
    onError: options.onError,
    failed: 0,
    signals: {
      store,
      hear: (n, wake) => {
        if (n.type === 'delivery.accepted' || n.type === 'resync') wake();
      },
    },
  });

  return {
    start() {
      starts++;
      if (starts === 1) loop.start();
    },
    async stop() {
      if (starts === 0) return;
      starts--;
      if (starts === 0) await loop.stop();
    },
    async close() {
      starts = 0;
      await loop.stop();
    },
    wake: loop.wake,
    health: loop.health,
    accepted(deliveryId, value, bytes) {
      deps.parsed.put(deliveryId, value, bytes);
      loop.wake();
    },
    async drain() {
      await loop.current;
      let total = 0;
      for (;;) {
        const claimed = await store.deliveries.claimEvaluations({ limit: batchSize, leaseMs, now: isoTime(clock.now()) });
        if (claimed.length === 0) return total;
        total += await evaluateBatch(deps, claimed);
      }
    },
  };
}
