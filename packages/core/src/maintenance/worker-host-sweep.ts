import type { RunService } from '../run/run-service.js';
import { isoTime } from '../util/clock.js';
import { isWaitingStatus, liveSince, runWorkerHost, WORKER_PRESENCE, waitingStatus } from '../worker/worker-hosts.js';
import type { MaintenanceTask } from './maintenance.js';

/** How many queued routed runs one sweep looks at (by host, oldest first). */
const ROUTED_PER_SWEEP = 1_000;

/**
 * Worker hosts' housekeeping (docs/operations.md, "Worker hosts"), every heartbeat period:
 * deletes the presence records of workers no longer live, and keeps the status of queued runs
 * routed to a host current: "waiting for a worker on host …" while no live worker serves it,
 * cleared once one does. The status is written through the run service's one transition path
 * (the `wait` event, run/state-machine.ts), so a run claimed meanwhile is left alone.
 */
export const workerHostTask = (runs: RunService): MaintenanceTask => ({
  name: 'worker-hosts',
  everyMs: WORKER_PRESENCE.heartbeatMs,
  async run(now) {
    const { store } = runs;
    const since = isoTime(liveSince(now));
    const removed = await store.workers.sweep({ seenBefore: since });
    const live = await store.workers.list({ seenSince: since });
    for (const run of await store.runs.listRouted(ROUTED_PER_SWEEP)) {
      const host = runWorkerHost(run.config);
      if (host === undefined) continue;
      const wanted = waitingStatus(host, live);
      // Another status (a re-queued run's) is replaced only by a wait; a wait that ended is cleared.
      const stale = (status: typeof run.statusMessage) => (wanted === null ? isWaitingStatus(status) : status?.message !== wanted.message);
      if (!stale(run.statusMessage)) continue;
      await runs.applyEvent(
        run.id,
        { type: 'wait' },
        { current: run, patch: (r) => (stale(r.statusMessage) ? { statusMessage: wanted } : {}) },
      );
    }
    return removed;
  },
});
