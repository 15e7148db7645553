import { isTerminal } from '../run/state-machine.js';
import { isoTime } from '../util/clock.js';
import type { Execution, RunWorkContext } from './worker-context.js';

/**
 * Renews an execution's lease every `heartbeatMs` (docs/state-machine.md, "Leases and retries").
 * The renewal answers with the run as it is, so the heartbeat also hears, without notifications,
 * of a cancel (the execution is aborted), a lost lease, and follow-ups sent through another process.
 * Returns the function that stops it.
 */
export function startHeartbeat(ctx: RunWorkContext, runId: string, execution: Execution): () => void {
  const { store, clock, id, onError } = ctx;
  const timer = setInterval(async () => {
    try {
      const run = await store.runs.renewLease({
        runId,
        workerId: id,
        now: isoTime(clock.now()),
        leaseExpiresAt: isoTime(clock.now() + ctx.leaseMs),
      });
      if (!run || run.lease?.workerId !== id || isTerminal(run.state)) {
        execution.controller.abort(new Error(run && isTerminal(run.state) ? `run is ${run.state}` : 'lease lost'));
        return;
      }
      if (execution.inbox.listening) execution.inbox.offer(await store.runs.listFollowups(runId));
    } catch (error) {
      onError(error);
    }
  }, ctx.heartbeatMs);
  return () => clearInterval(timer);
}
