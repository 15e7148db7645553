/** How much work a gate lets in (see `createGate`). */
export interface GateLimits {
  /** At most this many run at once. */
  concurrent: number;
  /** At most this many wait for a place; one more is refused at once. */
  waiting: number;
  /** A waiter that has no place after this long is refused. */
  waitMs: number;
}

/** Runs work with a bounded number at once; what cannot get a place in time gets `refuse()` thrown. */
export interface Gate {
  run<T>(work: () => Promise<T>): Promise<T>;
}

interface Waiter {
  enter: () => void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * A counting semaphore with a bounded, timed queue: places are handed to waiters in arrival order,
 * and a refusal costs nothing but the error, so a burst past the limits is answered at once rather
 * than held in memory (docs/run-api.md, "A page", on concurrent page builds).
 */
export function createGate(limits: GateLimits, refuse: () => Error): Gate {
  let active = 0;
  const queue: Waiter[] = [];
  const release = () => {
    const next = queue.shift();
    if (next === undefined) active--;
    else {
      clearTimeout(next.timer);
      next.enter(); // the place passes to it: `active` stays
    }
  };
  const place = (): Promise<void> => {
    if (active < limits.concurrent) {
      active++;
      return Promise.resolve();
    }
    if (queue.length >= limits.waiting) return Promise.reject(refuse());
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        enter: resolve,
        timer: setTimeout(() => {
          queue.splice(queue.indexOf(waiter), 1);
          reject(refuse());
        }, limits.waitMs),
      };
      queue.push(waiter);
    });
  };
  return {
    async run(work) {
      await place();
      try {
        return await work();
      } finally {
        release();
      }
    },
  };
}
