/** How a part's loop backs off while its passes fail (loop.ts). */
export interface BackoffOptions {
  /** The wait after the first failure; doubled after each further one. */
  baseMs: number;
  /** The longest wait. */
  maxMs: number;
  /**
   * The share of each wait taken off at random (default 0.2), so that processes that failed
   * together (a database restart) do not all come back at the same instant.
   */
  jitter?: number;
  random?: () => number;
}

/** The longest a failing worker waits between timed polls (unless `pollIntervalMs` is longer). */
export const MAX_BACKOFF_MS = 10_000;

/**
 * Backoff: a timed pass that fails (the store is down, most likely) puts off the next timed one,
 * `baseMs` × 1, 2, 4… after 1, 2, 3… failures in a row, at most `maxMs`, each less up to a
 * `jitter` share; a pass that works resets it. An outage then costs a few queries a minute, not
 * one per interval, and the part resumes within `maxMs` of the store's return (docs/production.md,
 * "When the database goes away"). A failure while already waiting counts once.
 */
export function backoff(options: BackoffOptions) {
  const jitter = options.jitter ?? 0.2;
  const random = options.random ?? Math.random;
  let failures = 0;
  let dueAt = 0;
  return {
    /** When the next timed pass may run (0: no backoff). */
    dueAt: () => dueAt,
    due: (now: number) => now >= dueAt,
    /** A pass failed at `now`; true when that started a new wait (false: one was already under way). */
    failed(now: number): boolean {
      if (now < dueAt) return false;
      failures = Math.min(failures + 1, 30);
      const wait = Math.min(options.maxMs, options.baseMs * 2 ** (failures - 1));
      dueAt = now + Math.round(wait * (1 - jitter * random()));
      return true;
    },
    succeeded() {
      failures = 0;
      dueAt = 0;
    },
  };
}
