/** The longest a failing worker waits between timed polls (unless `pollIntervalMs` is longer). */
export const MAX_BACKOFF_MS = 10_000;

/**
 * Backoff: a timed poll or lease sweep that fails (the store is down, most likely) puts off the
 * next timed one, twice as long each time up to MAX_BACKOFF_MS; a poll that works resets it. An
 * outage then costs a few queries a minute, not one per interval, and the worker resumes within
 * MAX_BACKOFF_MS of the store's return (docs/production.md, "When the database goes away").
 *
 * When the next timed poll is due after failures: `pollIntervalMs` × 2, 4, 8… after 1, 2, 3…
 * failures in a row, at most `MAX_BACKOFF_MS` (or `pollIntervalMs`, if longer).
 */
export function pollBackoff(pollIntervalMs: number) {
  let failures = 0;
  let dueAt = 0;
  const cap = Math.max(pollIntervalMs, MAX_BACKOFF_MS);
  return {
    due: (now: number) => now >= dueAt,
    failed(now: number) {
      // The poll and the lease sweep of one tick count once; so does a failure while waiting.
      if (now < dueAt) return;
      failures = Math.min(failures + 1, 30);
      dueAt = now + Math.min(cap, pollIntervalMs * 2 ** failures);
    },
    succeeded() {
      failures = 0;
      dueAt = 0;
    },
  };
}

export type PollBackoff = ReturnType<typeof pollBackoff>;
