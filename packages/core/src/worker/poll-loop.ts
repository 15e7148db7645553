import type { PollBackoff } from './poll-backoff.js';

/** One part's polls, one at a time (worker-part.ts). */
export interface PollLoop {
  /** Poll now, or once more right after the poll under way; resolves to how many items it took. */
  schedule(): Promise<number>;
  /** The poll under way, if any. */
  readonly current: Promise<number> | undefined;
}

/**
 * Serialises a part's polls: a request during a poll runs one more right after it (while the
 * worker is started), so a burst of wake-ups costs at most two polls. A poll that fails is
 * reported and backs the timer off; one that works resets it (poll-backoff.ts).
 */
export function pollLoop(
  take: () => Promise<number>,
  deps: { backoff: PollBackoff; onError: (error: unknown) => void; started: () => boolean },
): PollLoop {
  let polling: Promise<number> | undefined;
  let pollAgain = false;
  const schedule = (): Promise<number> => {
    if (polling) {
      pollAgain = true;
      return polling;
    }
    polling = take()
      .then(
        (taken) => {
          deps.backoff.succeeded();
          return taken;
        },
        (error) => {
          deps.backoff.failed(Date.now());
          deps.onError(error);
          return 0;
        },
      )
      .finally(() => {
        polling = undefined;
        if (pollAgain && deps.started()) {
          pollAgain = false;
          void schedule();
        }
      });
    return polling;
  };
  return {
    schedule,
    get current() {
      return polling;
    },
  };
}
