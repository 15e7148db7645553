import type {
  ArtifactItem,
  ClaimRunInput,
  CreateRunInput,
  FollowupRecord,
  NewRunEvent,
  RenewLeaseInput,
  RunListQuery,
  RunRecord,
  RunState,
  RunStore,
  TransitionOutcome,
  TransitionRunInput,
} from '@agentrun/core/store';
import {
  CLAIM,
  compareCodePoints,
  compareRuns,
  isAfterPosition,
  LEASED_STATES,
  matchesRunFilter,
  nextUpdatedAt,
  runWorkerHost,
  stateEvent,
  takesRun,
} from '@agentrun/core/store';
import { copy as clone } from './copy.js';
import { copyRun } from './copy-run.js';
import type { WithIdempotency } from './idempotency.js';
import type { RunWrite } from './notifications.js';
import { RunTable } from './run-table.js';

/**
 * Runs, their follow-ups and attachments in memory; each operation is synchronous, so atomic.
 * Writes go through `withIdempotency` (idempotency.ts) and tell `published` what they changed
 * (notifications.ts). `insertRun` is for the memory ingress, not part of the Store: the runs of an
 * accepted delivery, written in the delivery's own synchronous step.
 */
export function createMemoryRuns(
  withIdempotency: WithIdempotency,
  published: (write: RunWrite) => void,
  /** Appends to a run's transcript in the write's own step (run-events.ts `appendNow`). */
  appendEvents: (runId: string, events: readonly NewRunEvent[]) => void,
): {
  runs: RunStore;
  insertRun(input: CreateRunInput, copyBytes: (bytes: Uint8Array) => Uint8Array): void;
  /**
   * Store a run as given, its record and attachments kept rather than copied: for runs the caller
   * hands over and never touches again (an evaluated delivery's, ingress.ts `completeEvaluations`).
   */
  adoptRun(input: CreateRunInput): void;
  /** Whether the run exists, synchronously (for run-events.ts). */
  hasRun(runId: string): boolean;
  /** The stored run itself, synchronously, to read (never change) in a write's own step (callbacks.ts). */
  peekRun(runId: string): RunRecord | undefined;
  /** Every stored run itself, to read (never change) in a read's own step (stats.ts). */
  allRuns(): Iterable<RunRecord>;
  /** Append to a run's `artifacts`, synchronously (for artifacts.ts); false when the run is gone. */
  appendArtifact(runId: string, item: ArtifactItem): boolean;
} {
  const runs = new RunTable();
  const followups = new Map<string, FollowupRecord[]>();

  const runStore: RunStore = {
    async create(input: CreateRunInput) {
      return withIdempotency(
        input.idempotency,
        () => {
          if (runs.has(input.run.id)) throw new Error(`run ${input.run.id} already exists`);
          runs.insert(copyRun(input.run), input.attachments.map(clone));
          published({ runId: input.run.id, before: undefined, after: input.run.state });
          return copyRun(input.run);
        },
        (run) => run,
      );
    },

    async get(runId, teamUid) {
      const run = runs.get(runId);
      return run && (teamUid === undefined || run.teamUid === teamUid) ? copyRun(run) : undefined;
    },

    async list(query: RunListQuery) {
      const out: RunRecord[] = [];
      for (const run of runs.values()) {
        if (run.teamUid !== query.teamUid) continue;
        if (query.asOf !== undefined && query.sortBy === 'updated_at' && run.updatedAt > query.asOf) continue;
        if (!isAfterPosition(run, query)) continue;
        if (matchesRunFilter(run, query.filter)) out.push(run);
      }
      return out.sort(compareRuns(query.sortBy, query.order)).slice(0, query.limit).map(copyRun);
    },

    async transition(input: TransitionRunInput) {
      return withIdempotency(
        input.idempotency,
        (): TransitionOutcome => {
          const run = runs.get(input.runId);
          if (!run || (input.teamUid !== undefined && run.teamUid !== input.teamUid)) return { applied: false, run: undefined };
          const { expect } = input;
          const leaseOk =
            (expect.workerId === undefined || run.lease?.workerId === expect.workerId) &&
            (expect.leaseExpiredBy === undefined || (run.lease !== null && run.lease.expiresAt <= expect.leaseExpiredBy));
          if (run.state !== expect.state || !leaseOk) return { applied: false, run: copyRun(run) };
          const before = run.state;
          const patch = clone(input.patch);
          Object.assign(run, definedOnly(patch));
          run.updatedAt = nextUpdatedAt(run.updatedAt, input.now);
          if (input.followup) {
            const list = followups.get(run.id) ?? [];
            list.push(clone(input.followup));
            followups.set(run.id, list);
          }
          // The transcript's lines first, then the change's notifications, in the order PostgreSQL
          // sends them (its triggers' come at the end of the statement).
          appendEvents(run.id, [
            ...(input.transcript?.state && run.state !== before ? [stateEvent(before, run.state, run.statusMessage, run.updatedAt)] : []),
            ...(input.transcript?.events ?? []),
          ]);
          published({ runId: run.id, before, after: run.state, followupId: input.followup?.id });
          // Read in the same step as the write: nothing can come between, so the read is complete.
          if (input.followups) return { applied: true, run: copyRun(run), followups: (followups.get(run.id) ?? []).map(clone) };
          return { applied: true, run: copyRun(run) };
        },
        (outcome) => (outcome.applied ? outcome.run : undefined),
      );
    },

    async claimNext(input: ClaimRunInput) {
      // The path is the state machine's (state-machine.ts `CLAIM`, `CLAIM_AND_START`).
      const path = input.path ?? CLAIM;
      const from = path[0] as RunState;
      const to = path[path.length - 1] as RunState;
      let next: RunRecord | undefined;
      for (const run of runs.values()) {
        if (run.state !== from || !takesRun(input, runWorkerHost(run.config))) continue;
        if (!next || run.createdAt < next.createdAt || (run.createdAt === next.createdAt && run.id < next.id)) next = run;
      }
      if (!next) return undefined;
      const statusBefore = next.statusMessage;
      next.state = to;
      next.attempts += 1;
      next.lease = { workerId: input.workerId, expiresAt: input.leaseExpiresAt };
      next.updatedAt = nextUpdatedAt(next.updatedAt, input.now);
      const { start } = input;
      if (start) {
        next.statusMessage = clone(start.statusMessage);
        next.startedAt ??= start.startedAt;
        next.sessionId ??= next.id;
        if (start.sessionLinkBase !== undefined) next.sessionLink ??= start.sessionLinkBase + next.id;
      }
      const at = next.updatedAt;
      // One event per step; each tells the status the run had then (the start's only at the end).
      appendEvents(
        next.id,
        path
          .slice(1)
          .map((state, i) => stateEvent(path[i] as RunState, state, i === path.length - 2 ? next.statusMessage : statusBefore, at)),
      );
      published({ runId: next.id, before: from, after: to });
      return input.followups ? { ...copyRun(next), followups: (followups.get(next.id) ?? []).map(clone) } : copyRun(next);
    },

    async queueStats() {
      let depth = 0;
      let oldestCreatedAt: string | null = null;
      for (const run of runs.values()) {
        if (run.state !== 'QUEUED') continue;
        depth++;
        if (oldestCreatedAt === null || run.createdAt < oldestCreatedAt) oldestCreatedAt = run.createdAt;
      }
      return { depth, oldestCreatedAt };
    },

    async renewLease(input: RenewLeaseInput) {
      const run = runs.get(input.runId);
      if (!run) return undefined;
      if (LEASED_STATES.has(run.state) && run.lease?.workerId === input.workerId) {
        run.lease = { workerId: input.workerId, expiresAt: input.leaseExpiresAt };
      }
      return copyRun(run);
    },

    async listRouted(limit) {
      return [...runs.values()]
        .filter((r) => r.state === 'QUEUED' && runWorkerHost(r.config) !== undefined)
        .map((r) => ({ r, host: runWorkerHost(r.config) as string }))
        .sort(
          (a, b) =>
            compareCodePoints(a.host, b.host) || compareCodePoints(a.r.createdAt, b.r.createdAt) || compareCodePoints(a.r.id, b.r.id),
        )
        .slice(0, limit)
        .map(({ r }) => copyRun(r));
    },

    async listExpiredLeases(now, limit) {
      return [...runs.values()]
        .filter((r) => LEASED_STATES.has(r.state) && r.lease !== null && r.lease.expiresAt <= now)
        .sort((a, b) => (a.lease?.expiresAt ?? '').localeCompare(b.lease?.expiresAt ?? '') || a.id.localeCompare(b.id))
        .slice(0, limit)
        .map(copyRun);
    },

    async listFollowups(runId) {
      return (followups.get(runId) ?? []).map(clone);
    },

    async getAttachment(teamUid, runId, fileName) {
      const run = runs.get(runId);
      if (!run || run.teamUid !== teamUid) return undefined;
      const a = runs.files(runId).find((x) => x.fileName === fileName);
      return a ? clone(a) : undefined;
    },
  };

  // AttachmentRecord is flat but for its bytes, which the ingress copies (once per delivery).
  const insertRun = (input: CreateRunInput, copyBytes: (bytes: Uint8Array) => Uint8Array) => {
    if (runs.has(input.run.id)) throw new Error(`run ${input.run.id} already exists`);
    runs.insert(
      copyRun(input.run),
      input.attachments.map((a) => ({ ...a, data: copyBytes(a.data) })),
    );
    published({ runId: input.run.id, before: undefined, after: input.run.state });
  };

  const adoptRun = (input: CreateRunInput) => {
    if (runs.has(input.run.id)) throw new Error(`run ${input.run.id} already exists`);
    runs.insert(input.run, input.attachments);
    published({ runId: input.run.id, before: undefined, after: input.run.state });
  };

  const appendArtifact = (runId: string, item: ArtifactItem) => {
    const run = runs.get(runId);
    run?.artifacts.push(clone(item));
    return run !== undefined;
  };
  return {
    runs: runStore,
    insertRun,
    adoptRun,
    hasRun: (runId) => runs.has(runId),
    peekRun: (runId) => runs.get(runId),
    allRuns: () => runs.values(),
    appendArtifact,
  };
}

/** A patch's given fields (`undefined` means "leave as is"; `null` clears). */
const definedOnly = <T extends object>(patch: T): Partial<T> =>
  Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
