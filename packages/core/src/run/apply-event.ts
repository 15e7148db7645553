import { AgentRunError, notFound } from '../errors.js';
import { type AgentRunEvents, emitSafely } from '../events.js';
import type { IdempotencyRecord, IdempotencyWrite } from '../store/idempotency.js';
import type { RunExpectation, RunPatch } from '../store/runs.js';
import type { Store } from '../store/store.js';
import { type Clock, isoTime } from '../util/clock.js';
import type { FollowupRecord, RunRecord } from './record.js';
import { toRunItem } from './record.js';
import { type RefusalReason, type RunEvent, startedAtAfter, transition } from './state-machine.js';
import { followupEvent } from './transcript.js';

/** Options of `applyEvent`, the one way any run changes state. */
export interface ApplyEventOptions {
  teamUid?: string;
  /** Worker writes: apply only while this worker holds the lease. */
  workerId?: string;
  /** Lease recovery: apply only if the run's lease expired at or before this instant. */
  leaseExpiredBy?: string;
  /** Further fields to set, computed from the run as read. */
  patch?: (run: RunRecord) => RunPatch;
  followup?: FollowupRecord;
  idempotency?: IdempotencyWrite<RunRecord>;
  /**
   * The run as the caller last saw it (a worker: the run it claimed, or its own last write): the
   * first decision is made on it instead of a fresh read. The write is a compare-and-set on its
   * state (and lease holder), so a stale one costs only the read it meant to save: the run is then
   * read and decided again. A round trip less on a worker's path (docs/executors.md, "Measured").
   */
  current?: RunRecord;
  /** Ask the write for the run's follow-ups too (`TransitionRunInput.followups`): a worker's outcome. */
  followups?: boolean;
}

export type ApplyEventResult =
  | { kind: 'applied'; run: RunRecord; from: RunRecord['state']; followups?: FollowupRecord[] }
  | { kind: 'replayed'; record: IdempotencyRecord }
  /** The state machine refused the event for the run as it is now. */
  | { kind: 'refused'; reason: RefusalReason; run: RunRecord }
  /** A worker write whose lease is gone (expired, re-claimed, or the run ended). */
  | { kind: 'lease_lost'; run: RunRecord | undefined };

/** What applying an event needs: the `RunService` fields of the same names. */
export interface ApplyEventDeps {
  store: Store;
  events: AgentRunEvents;
  clock: Clock;
  maxAttempts: number;
  onError: (error: unknown) => void;
}

/** Compare-and-set retries before giving up on a run that keeps changing under us. */
const MAX_CAS_ATTEMPTS = 8;

/**
 * Apply `event` to a run: read it, ask the state machine, and write with compare-and-set on the
 * state read (and the lease holder, for worker writes). If the run changed in between, read it
 * again and decide again. The change and the follow-up go to the run's transcript in the same
 * write (run/transcript.ts, `TransitionRunInput.transcript`), and it emits `run.state_changed` when the state changed (docs/state-machine.md:
 * stores apply the machine's answer only if the run is still in the state it was read in).
 */
export async function applyRunEvent(
  deps: ApplyEventDeps,
  runId: string,
  event: RunEvent,
  options: ApplyEventOptions = {},
): Promise<ApplyEventResult> {
  for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
    // Refused or not ours: that is the answer only for a run just read, so one the caller passed is read then.
    const current = attempt === 0 ? options.current : undefined;
    const assumed = current !== undefined && current.id === runId && (options.teamUid === undefined || current.teamUid === options.teamUid);
    const run = assumed ? current : await deps.store.runs.get(runId, options.teamUid);
    if (!run) {
      if (options.workerId !== undefined) return { kind: 'lease_lost', run: undefined };
      throw notFound(`run ${runId} not found`);
    }
    if (options.workerId !== undefined && run.lease?.workerId !== options.workerId) {
      if (assumed) continue;
      return { kind: 'lease_lost', run };
    }

    const decision = transition(run.state, event, { attempts: run.attempts, maxAttempts: deps.maxAttempts });
    if (!decision.ok) {
      if (assumed) continue;
      return { kind: 'refused', reason: decision.reason, run };
    }

    const expect: RunExpectation = { state: run.state };
    if (options.workerId !== undefined) expect.workerId = options.workerId;
    if (options.leaseExpiredBy !== undefined) {
      if (!run.lease || run.lease.expiresAt > options.leaseExpiredBy) {
        if (assumed) continue;
        return { kind: 'lease_lost', run };
      }
      expect.leaseExpiredBy = options.leaseExpiredBy;
    }
    const now = isoTime(deps.clock.now());
    // started_at is the state machine's to set (state-machine.ts, `startedAtAfter`), not a caller's.
    const startedAt = startedAtAfter(run.startedAt, decision.to, now);
    const outcome = await deps.store.runs.transition({
      runId,
      ...(options.teamUid !== undefined ? { teamUid: options.teamUid } : {}),
      expect,
      patch: { ...options.patch?.(run), state: decision.to, ...(startedAt !== run.startedAt ? { startedAt } : {}) },
      now,
      ...(options.followup ? { followup: options.followup } : {}),
      ...(options.idempotency ? { idempotency: options.idempotency } : {}),
      ...(options.followups ? { followups: true } : {}),
      // The transcript's lines of this change, in the write that makes it (run/transcript.ts).
      transcript: { state: true, ...(options.followup ? { events: [followupEvent(options.followup)] } : {}) },
    });
    if (outcome.replayed) return { kind: 'replayed', record: outcome.replayed };
    if (outcome.result.applied) {
      const next = outcome.result.run;
      if (next.state !== run.state) {
        emitSafely(deps.events, deps.onError, 'run.state_changed', {
          run: toRunItem(next),
          team_uid: next.teamUid,
          from: run.state,
          to: next.state,
        });
      }
      const { followups } = outcome.result;
      return followups ? { kind: 'applied', run: next, from: run.state, followups } : { kind: 'applied', run: next, from: run.state };
    }
    // The run changed between our read and our write: decide again on what it is now.
  }
  throw new AgentRunError('conflict', `run ${runId} is changing too quickly; retry`, { retryable: true });
}
