import type { Worker } from '../worker/worker.js';

/**
 * The workers `agentrun.worker()` made in this process and whether each runs (started, not yet
 * told to stop), for `GET /readyz` and for `agentrun.close()`. The root wraps each worker it
 * hands out; a worker made with `createWorker` directly is not seen.
 */
export interface WorkerStates {
  /** The worker, with `start` and `stop` noted here. */
  track(worker: Worker): Worker;
  /** How many were made and how many run now. */
  counts(): { made: number; running: number };
  /** Every worker made, to stop them all. */
  all(): readonly Worker[];
}

export function createWorkerStates(): WorkerStates {
  const running = new Map<Worker, boolean>();
  return {
    track(worker) {
      const tracked: Worker = {
        ...worker,
        start() {
          running.set(tracked, true);
          worker.start();
        },
        stop(options) {
          running.set(tracked, false);
          return worker.stop(options);
        },
      };
      running.set(tracked, false);
      return tracked;
    },
    counts: () => ({ made: running.size, running: [...running.values()].filter(Boolean).length }),
    all: () => [...running.keys()],
  };
}
