import type { Notification } from '../notify/notification.js';

/**
 * A kind of work the worker pool does (docs/executors.md, "Worker parts"): executing runs
 * (runs-part.ts) is one. (The pool is itself the `runs` part of a process's runner, beside the
 * evaluation, the schedules and the rest: runner/.) The pool (worker.ts) gives every part the
 * runner's loop (runner/loop.ts: its polls one at a time, a timer, backoff, signals) and the
 * stop; a part only says how to take work, what a signal means to it, and how to let go.
 */
export interface WorkerPart {
  /** Take work up to the part's capacity now; resolves to how many items it took. */
  take(): Promise<number>;
  /** A store notification (or this process's event, as one): act on it, `wake` to poll this part now. */
  hear(notification: Notification, wake: () => void): void;
  /** On each timed tick while the store answers: a sweep such as lease recovery. A failure backs the timer off. */
  sweep?(): Promise<unknown>;
  /** How many items it holds now (taken, not finished). */
  held(): number;
  /** Resolves when what it holds now is finished. */
  settled(): Promise<void>;
  /** The pool stopped taking work and no longer listens: let go of what is still held (hand it back). */
  release(): Promise<void>;
}

/** What the pool tells its parts. */
export interface PartHost {
  /** Started and not stopping. */
  started(): boolean;
  /** From the first moment of `stop()`: take nothing more, even on a signal. */
  stopping(): boolean;
  /** Poll this part again (an item finished, capacity is free). */
  wake(): void;
}
