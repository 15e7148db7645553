import type { RunState } from '../models/run-state.js';
import type { RunListQuery } from '../run/list-query.js';
import type { AttachmentRecord, FollowupRecord, RunLease, RunRecord } from '../run/record.js';
import type { IdempotencyWrite, Idempotent } from './idempotency.js';
import type { NewRunEvent } from './run-events.js';

// The runs part of the Store port (docs/stores.md, "The shape of the interface"): runs with their
// follow-ups and attachments, compare-and-set transitions, claims and leases.

export interface CreateRunInput {
  run: RunRecord;
  attachments: readonly AttachmentRecord[];
  idempotency?: IdempotencyWrite<RunRecord>;
}

/** What the run must still be for a transition to apply. */
export interface RunExpectation {
  /** The state the run was read in. */
  state: RunState;
  /** For worker writes: the lease holder. The write applies only while this worker holds it. */
  workerId?: string;
  /** For lease recovery: apply only if the lease expired at or before this instant. */
  leaseExpiredBy?: string;
}

/** Fields a transition may change. `updatedAt` is not here: see `TransitionRunInput.now`. */
export interface RunPatch {
  state?: RunState;
  statusMessage?: RunRecord['statusMessage'];
  startedAt?: string | null;
  sessionId?: string | null;
  sessionLink?: string | null;
  lease?: RunLease | null;
  /** Reset to 0 when a follow-up re-queues a finished run (a fresh retry budget). */
  attempts?: number;
  /** What the agent reported so far (models/request-usage.ts `mergeUsage`). */
  requestUsage?: RunRecord['requestUsage'];
}

export interface TransitionRunInput {
  runId: string;
  /** When given, a run of another team is treated as absent. */
  teamUid?: string;
  expect: RunExpectation;
  patch: RunPatch;
  /** The store sets `updatedAt = max(now, updatedAt)`, so `updated_at` never goes backwards. */
  now: string;
  /** Appended in the same transaction (a follow-up message). */
  followup?: FollowupRecord;
  /** Recorded (with `respond(run after the write)`) only if the transition applies. */
  idempotency?: IdempotencyWrite<RunRecord>;
  /**
   * Appended to the run's transcript in the same write, only if it applies (docs/stores.md, "Run
   * events"): with `state`, a `state` event when the patch changes the state (from `expect.state`
   * to the new one, with the status message the write left, at the new `updatedAt`); then `events`.
   */
  transcript?: { state?: boolean; events?: readonly NewRunEvent[] };
  /**
   * Also answer the run's follow-ups (oldest first), read in the write, when it applies: a worker's
   * read of follow-ups its execution never received, without a statement of its own (docs/executors.md,
   * "Statements per run"). Answered only when the store can tell the read missed none accepted
   * before the write took the run; else `followups` is absent and the caller reads them itself.
   */
  followups?: boolean;
}

/**
 * `applied: false` carries the run as it is now (`undefined` if it does not exist). `followups`:
 * see `TransitionRunInput.followups`.
 */
export type TransitionOutcome =
  | { applied: true; run: RunRecord; followups?: FollowupRecord[] }
  | { applied: false; run: RunRecord | undefined };

export interface ClaimRunInput {
  workerId: string;
  /**
   * The claiming worker's host: it takes runs whose `config.worker_host` is this host, and (unless
   * `unrouted` is false) runs that name none (docs/operations.md, "Worker hosts"). Without it, only
   * runs that name no host.
   */
  host?: string;
  /** Also take runs that name no host. Default true. */
  unrouted?: boolean;
  now: string;
  leaseExpiresAt: string;
  /**
   * The states the claim takes the run through, from the state machine (state-machine.ts `CLAIM`,
   * the default, or `CLAIM_AND_START`): claimed from the first, left in the last, and a `state`
   * event per step appended to its transcript in the same write, each at the new `updatedAt`.
   */
  path?: readonly RunState[];
  /**
   * For a path that starts the run: the status it is left with, `started_at` set to `startedAt`
   * if it had none (state-machine.ts `startedAtAfter`), and its session the run itself when it has
   * none: `sessionId` its id, `sessionLink` `sessionLinkBase` followed by its id (when given).
   */
  start?: { statusMessage: NonNullable<RunRecord['statusMessage']>; startedAt: string; sessionLinkBase?: string };
  /** Also answer the claimed run's follow-ups (oldest first), read in the claim: a worker's input without a read of its own. */
  followups?: boolean;
}

/** A claimed run; `followups` only when the claim asked for them. */
export type ClaimedRun = RunRecord & { followups?: FollowupRecord[] };

export interface RenewLeaseInput {
  runId: string;
  workerId: string;
  now: string;
  leaseExpiresAt: string;
}

export interface QueueStats {
  depth: number;
  oldestCreatedAt: string | null;
}

export interface RunStore {
  /** Insert a run with its attachments (and idempotency record) atomically. */
  create(input: CreateRunInput): Promise<Idempotent<RunRecord>>;

  /** One run; with `teamUid`, a run of another team is `undefined`. */
  get(runId: string, teamUid?: string): Promise<RunRecord | undefined>;

  /** A page in keyset order: at most `query.limit` runs matching the filter, after `query.after`. */
  list(query: RunListQuery): Promise<RunRecord[]>;

  /**
   * Compare-and-set: apply `patch` only if the run is in `expect.state` (and leased by
   * `expect.workerId` when given). Atomic with the follow-up and idempotency record it carries.
   */
  transition(input: TransitionRunInput): Promise<Idempotent<TransitionOutcome>>;

  /**
   * Lease the oldest run in the path's first state (`QUEUED`; by `createdAt`, then id) that the
   * worker's host takes (`ClaimRunInput.host`, `runWorkerHost`) to a worker:
   * the path's last state (`CLAIMED` by default), `attempts + 1`, the lease set, `updatedAt`
   * advanced, the `start` fields when given, and a `state` event per step of the path, all in one
   * write. Two concurrent claims never get one run.
   */
  claimNext(input: ClaimRunInput): Promise<ClaimedRun | undefined>;

  /**
   * Extend the lease if `workerId` still holds it; returns the run as it is now either way
   * (`undefined` if it does not exist), so a worker also learns of a cancel. Does not touch
   * `updatedAt`: a heartbeat is not a change a caller can see.
   */
  renewLease(input: RenewLeaseInput): Promise<RunRecord | undefined>;

  /**
   * Queued runs routed to a host (`config.worker_host`, worker/worker-hosts.ts `runWorkerHost`), by
   * host, then oldest first: at most `limit`. For the status of runs waiting for a worker of their host.
   */
  listRouted(limit: number): Promise<RunRecord[]>;

  /** Runs in a leased state whose lease expired at or before `now`, oldest first. */
  listExpiredLeases(now: string, limit: number): Promise<RunRecord[]>;

  /**
   * Optional, for the queue gauges of the metrics (telemetry/run-metrics.ts): how many runs are
   * `QUEUED`, and the oldest one's `createdAt` (`null` when none). Read at each metrics collection.
   */
  queueStats?(): Promise<QueueStats>;

  /** Follow-ups of a run, oldest first. */
  listFollowups(runId: string): Promise<FollowupRecord[]>;

  /** One attachment's content, scoped to the team. */
  getAttachment(teamUid: string, runId: string, fileName: string): Promise<AttachmentRecord | undefined>;
}
