import { emitSafely } from '../events.js';
import type { RunState } from '../models/run-state.js';
import type { Notification } from '../notify/notification.js';
import type { RunRecord } from '../run/record.js';
import { toRunItem } from '../run/record.js';
import { sessionLinkBase } from '../run/session-link.js';
import { startedStatus } from '../run/started-status.js';
import { CLAIM, CLAIM_AND_START, isTerminal, startedAtAfter } from '../run/state-machine.js';
import { isoTime } from '../util/clock.js';
import { executeRun } from './execute-run.js';
import { followupInbox } from './followup-inbox.js';
import { handBack, recoverExpiredLeases } from './lease-recovery.js';
import type { Execution, RunWorkContext } from './worker-context.js';
import type { PartHost, WorkerPart } from './worker-part.js';

/**
 * The pool's first kind of work (worker-part.ts): claim queued runs up to `concurrency` and
 * execute each (execute-run.ts); hear cancels and follow-ups of the runs it holds; sweep expired
 * leases; on stop, hand what it holds back to the queue (docs/executors.md, "Worker parts").
 */
export function runsPart(ctx: RunWorkContext, host: PartHost): WorkerPart {
  const { store, events, clock, id, onError, running, concurrency, telemetry } = ctx;

  const onStateChange = (runId: string, to: RunRecord['state'], wake: () => void) => {
    if (to === 'QUEUED') wake();
    const execution = running.get(runId);
    if (execution && isTerminal(to)) execution.controller.abort(new Error(`run is ${to}`));
  };
  const onFollowupAdded = (runId: string) => {
    const execution = running.get(runId);
    if (execution) void store.runs.listFollowups(runId).then((all) => execution.inbox.offer(all), onError);
  };

  // Claimed and started in one write (state-machine.ts `CLAIM_AND_START`) when the worker can give
  // the run its whole start there: the status, `started_at`, and the session defaults, whose link
  // must then be a base and the id (run/session-link.ts). Otherwise claimed, then started by
  // execute-run.ts as its own write.
  const linkBase = ctx.sessionLink === undefined ? undefined : sessionLinkBase(ctx.sessionLink);
  const startsAtOnce = ctx.sessionLink === undefined || linkBase !== undefined;
  const claim = (now: string) =>
    startsAtOnce
      ? {
          path: CLAIM_AND_START,
          start: {
            // Where it runs, kept in the start's state event (run/started-status.ts).
            statusMessage: startedStatus({ workerId: ctx.id, host: ctx.host }),
            startedAt: startedAtAfter(null, CLAIM_AND_START[CLAIM_AND_START.length - 1] as RunState, now) ?? now,
            ...(linkBase !== undefined ? { sessionLinkBase: linkBase } : {}),
          },
        }
      : { path: CLAIM };

  // Runs heard queued (`run.queued`): how many claims a take sends at once. A hint only, kept
  // while claims find runs (a backlog heard stays a backlog until a claim finds the queue empty,
  // which resets it), so a backlog drains with as many claims at once as it was heard with, not
  // one at a time once the notifications stop; at its end each lane sends one claim that finds
  // nothing (docs/executors.md, "Statements per run").
  let queuedHint = 0;
  // Claims under way: each holds a place in `concurrency` until it answers.
  let claiming = 0;
  // While a take is under way: start more of its claims for runs heard queued since it began.
  let moreLanes: (() => void) | undefined;
  // Executions that hold a place of `concurrency`: claimed, outcome not yet written. One past
  // its outcome (only the read of late follow-ups left, execute-run.ts) frees its place, so the
  // pool does not wait a round trip per run for that read before claiming the next.
  let active = 0;

  async function claimOne(): Promise<boolean> {
    const now = isoTime(clock.now());
    // The follow-ups come with the claim: the executor's input needs no read of its own. (On
    // PostgreSQL one committed while the claim was under way, after its snapshot, can be missed
    // there: its notification finds no execution yet; the execution then ends without it and
    // the run is queued again for it, execute-run.ts `requeueForUndelivered`.)
    const claimedRun = await store.runs.claimNext({
      workerId: id,
      host: ctx.host,
      unrouted: ctx.unrouted,
      now,
      leaseExpiresAt: isoTime(clock.now() + ctx.leaseMs),
      followups: true,
      ...claim(now),
    });
    if (!claimedRun) return false;
    const { followups, ...run } = claimedRun;
    telemetry?.claimed(run);
    let holdsPlace = true;
    const freePlace = () => {
      if (!holdsPlace) return false;
      holdsPlace = false;
      active--;
      return true;
    };
    const execution: Execution = {
      run,
      controller: new AbortController(),
      inbox: followupInbox(onError),
      writes: Promise.resolve(),
      queuedWrites: 0,
      done: Promise.resolve(),
      outcomeWritten: () => {
        if (!freePlace() || !host.started()) return;
        // A take under way claims into the place at once; else the next take does.
        moreLanes?.();
        host.wake();
      },
    };
    active++;
    running.set(run.id, execution);
    execution.done = executeRun(ctx, run, execution, followups).finally(() => {
      // Only its own entry: the run, queued again by a follow-up as this execution ended, may
      // already be claimed anew under the same id.
      if (running.get(run.id) === execution) running.delete(run.id);
      freePlace();
      if (host.started()) host.wake();
    });
    // One event per step of the path, as the transcript tells it (the store wrote those); built
    // only for a listener, once the executor has started (executeRun reaches it without awaiting
    // when the run has no environment): pickup latency is the time to the executor's start, and
    // nothing the executor does can emit before these (its writes are asynchronous).
    if (events.listenerCount('run.state_changed') > 0) {
      const path = startsAtOnce ? CLAIM_AND_START : CLAIM;
      const item = toRunItem(run);
      for (let i = 1; i < path.length; i++)
        emitSafely(events, onError, 'run.state_changed', {
          run: item,
          team_uid: run.teamUid,
          from: path[i - 1] as RunState,
          to: path[i] as RunState,
        });
    }
    return true;
  }

  /**
   * Claims until the queue is empty or the pool full. With runs heard queued, several claims go
   * at once (one per run heard, up to the free places), and more join while more are heard: a
   * single claimant would cap the pool at one claim per round trip (docs/executors.md,
   * "Statements per run").
   */
  function take(): Promise<number> {
    let claimed = 0;
    let empty = false;
    let lanes = 0;
    let failure: { error: unknown } | undefined;
    const free = () => concurrency - active - claiming;
    return new Promise<number>((resolve, reject) => {
      const lane = async (): Promise<void> => {
        while (!empty && !host.stopping() && free() > 0) {
          claiming++;
          let got: boolean;
          try {
            got = await claimOne();
          } finally {
            claiming--;
          }
          if (!got) {
            empty = true;
            queuedHint = 0;
            return;
          }
          claimed++;
          addLanes();
        }
      };
      const addLanes = () => {
        // Lanes, not claims, are counted against the places: a lane's claim holds one.
        while (!empty && lanes < Math.max(1, Math.min(queuedHint, concurrency - active))) {
          lanes++;
          // Settled when the last lane ends: with the first failure (the poll loop reports it and
          // backs off), else with what was claimed.
          const ended = () => {
            if (--lanes > 0) return;
            moreLanes = undefined;
            if (failure) reject(failure.error);
            else resolve(claimed);
          };
          lane().then(ended, (error: unknown) => {
            empty = true;
            failure ??= { error };
            ended();
          });
        }
      };
      moreLanes = addLanes;
      addLanes();
    });
  }

  return {
    take,
    hear(n: Notification, wake) {
      if (n.type === 'run.queued') {
        queuedHint = Math.min(queuedHint + 1, concurrency);
        moreLanes?.();
        wake();
      } else if (n.type === 'run.changed') onStateChange(n.runId, n.state, wake);
      else if (n.type === 'run.followup') onFollowupAdded(n.runId);
      else if (n.type === 'resync') {
        // Notifications may have been missed (the store's listener reconnected): look now rather
        // than at the next poll and heartbeat, for new runs and for cancels and follow-ups of our own.
        wake();
        for (const runId of running.keys())
          void store.runs.get(runId).then((run) => {
            if (run) onStateChange(runId, run.state, wake);
            onFollowupAdded(runId);
          }, onError);
      }
    },
    sweep: () => recoverExpiredLeases(ctx),
    held: () => running.size,
    settled: async () => void (await Promise.all([...running.values()].map((e) => e.done))),
    async release() {
      const executions = [...running.entries()];
      for (const [, execution] of executions) execution.controller.abort(new Error('worker stopping'));
      await Promise.all(executions.map(([, e]) => e.done));
      await handBack(
        ctx,
        id,
        executions.map(([, e]) => e.run),
      );
    },
  };
}
