import type { AgentRunEvents } from '../events.js';
import type { Notification } from '../notify/notification.js';
import type { Store } from '../store/store.js';
import { type BackoffOptions, backoff } from './backoff.js';
import { listenForSignals, type Signals } from './signals.js';

/** Why a pass runs: its timer (the fallback, and where sweeps ride), or a wake (a signal, a caller). */
export type PassCause = 'timer' | 'wake';

/** How a part's loop is doing, for the health report (docs/operations.md, "Health"). */
export interface LoopHealth {
  /** Started and not stopped. */
  running: boolean;
  /** When the last pass that worked ended (epoch ms), if any. */
  lastSuccessAt: number | null;
  /** When the last pass that failed ended (epoch ms), if any. */
  lastErrorAt: number | null;
  /** Passes failed since the last that worked. */
  consecutiveFailures: number;
}

export interface LoopOptions<T> {
  /** One pass: take what there is to take now. Throwing (or rejecting) is a failure. */
  pass(cause: PassCause): Promise<T>;
  /** After a pass that worked: how long until the next timed pass (0: at once). */
  nextMs(result: T): number;
  /** Waits after failed passes. */
  backoff: BackoffOptions;
  /** Every failure of a pass, but for a {@link ReportedFailure}. */
  onError(error: unknown): void;
  /** What `run()` answers for a pass that failed. */
  failed: T;
  /**
   * Signals that wake the loop between its timed passes: the store's notifications (any process
   * sharing the store), else this process's `events` when given. Heard from `start()` until `stop()`.
   */
  signals?: { store: Store; events?: AgentRunEvents; hear(notification: Notification, wake: () => void): void };
  now?: () => number;
}

/**
 * The one loop every part of a runner uses (docs/architecture.md, "The runner"): passes run one at
 * a time; a request during a pass runs exactly one more right after it, so a burst of wake-ups
 * costs at most two passes. Between passes it sleeps until a signal wakes it or its timer is due.
 * A failed pass is reported and backs the timer off (backoff.ts); wake-ups still run at once.
 */
export interface Loop<T> {
  /** Listen, and pass now; then on every wake and timer until stopped. */
  start(): void;
  /** No pass from now on (timer off, wake-ups ignored) but still listening; resolves once the pass under way has ended. */
  halt(): Promise<void>;
  /** `halt`, then stop listening. */
  stop(): Promise<void>;
  /** A pass now, or once more right after the one under way; resolves to its result (`failed` if it failed). Also when not started. */
  run(cause?: PassCause): Promise<T>;
  /** While started: `run()`, in the background. */
  wake(): void;
  /** The pass under way, if any (it never rejects). */
  readonly current: Promise<T> | undefined;
  /** Resolves once listening, so no notification sent from then is missed. */
  readonly listening: Promise<void>;
  readonly started: boolean;
  health(): LoopHealth;
}

/** A failure the pass has reported itself (each of a maintenance pass's tasks, say): the loop only counts it and backs off. */
export class ReportedFailure extends Error {
  constructor(readonly errors: readonly unknown[]) {
    super(`${errors.length} failure(s), each reported`);
  }
}

export function createLoop<T>(options: LoopOptions<T>): Loop<T> {
  const now = options.now ?? Date.now;
  const waits = backoff(options.backoff);
  const health: LoopHealth = { running: false, lastSuccessAt: null, lastErrorAt: null, consecutiveFailures: 0 };
  let started = false;
  let current: Promise<T> | undefined;
  let again: PassCause | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerDue = Number.POSITIVE_INFINITY;
  let signals: Signals | undefined;

  const clearTimer = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    timerDue = Number.POSITIVE_INFINITY;
  };
  /** The next timed pass at `at`, or sooner if one is set sooner (`force`: at `at` whatever is set). */
  const setTimer = (at: number, force = false) => {
    if (!started || (!force && timerDue <= at)) return;
    clearTimer();
    timerDue = at;
    timer = setTimeout(
      () => {
        timer = undefined;
        timerDue = Number.POSITIVE_INFINITY;
        if (started) void run('timer');
      },
      Math.max(0, at - now()),
    );
  };

  const succeeded = (result: T): T => {
    waits.succeeded();
    health.lastSuccessAt = now();
    health.consecutiveFailures = 0;
    setTimer(now() + options.nextMs(result));
    return result;
  };
  const failed = (error: unknown): T => {
    const at = now();
    health.lastErrorAt = at;
    health.consecutiveFailures++;
    // A new wait replaces the timer; a failure while already waiting leaves it. A wait always has
    // its timer: the one that ran this pass may have fired while the wall clock still read a
    // moment short of the wait's end (Node's timers and Date.now() round apart), so the failure
    // counted as one during the wait, and left none.
    if (waits.failed(at) || timer === undefined) setTimer(waits.dueAt(), true);
    if (!(error instanceof ReportedFailure)) options.onError(error);
    return options.failed;
  };

  function run(cause: PassCause = 'wake'): Promise<T> {
    if (current) {
      again = again === 'timer' || cause === 'timer' ? 'timer' : 'wake';
      return current;
    }
    let pass: Promise<T>;
    try {
      pass = options.pass(cause);
    } catch (error) {
      pass = Promise.reject(error);
    }
    const settled: Promise<T> = pass.then(succeeded, failed).finally(() => {
      current = undefined;
      const next = again;
      again = undefined;
      if (next && started) void run(next);
    });
    current = settled;
    return settled;
  }

  const wake = () => {
    if (started) void run('wake');
  };
  const halt = async () => {
    started = false;
    health.running = false;
    again = undefined;
    clearTimer();
    await current;
  };

  return {
    start() {
      if (started) return;
      started = true;
      health.running = true;
      const { signals: ear } = options;
      if (ear && !signals) signals = listenForSignals(ear.store, ear.events, options.onError, (n) => ear.hear(n, wake));
      void run('timer');
    },
    halt,
    async stop() {
      await halt();
      // Started again meanwhile: it hears through the same ear.
      if (started) return;
      const listening = signals;
      signals = undefined;
      await listening?.stop();
    },
    run,
    wake,
    get current() {
      return current;
    },
    get listening() {
      return signals?.ready ?? Promise.resolve();
    },
    get started() {
      return started;
    },
    health: () => ({ ...health }),
  };
}
