import type { CreateRunInput, Idempotent, RunRecord, RunStore, TransitionOutcome, TransitionRunInput } from '@agentrun/core/store';
import { CLAIM, LEASED_STATES } from '@agentrun/core/store';
import { type RawBuilder, sql } from 'kysely';
import type { Db, Tx } from './db.js';
import type { DeferredNotifications } from './deferred-notifications.js';
import type { Idempotently } from './idempotency.js';
import { type FollowupRow, followupFromRow, iso, type RunRow, runFromRow } from './rows.js';
import { createdNotifications, type WrittenRun, writtenNotifications } from './run-notifications.js';
import { listRunsSql } from './runs-list-sql.js';
import { type Call, runStatements } from './runs-sql.js';
import type { Statements } from './statements.js';
import { prepared } from './statements.js';
import type { Tables } from './tables.js';

const LEASED = [...LEASED_STATES];

/**
 * A run answered as one JSON column (runs-sql.ts `Call`): its timestamps are ISO text, which
 * `runFromRow` reads as well; a deferred write's answer has its event counters too.
 */
type RunJson<More = unknown> = { run: RunRow & Pick<WrittenRun, 'last_event_id' | 'events_before'> & More };

/** Thrown inside a transaction to roll it back when a compare-and-set did not apply. */
class NotApplied extends Error {
  constructor(readonly current: RunRecord | undefined) {
    super('not applied');
  }
}

/**
 * Runs, their follow-ups and attachments (migrations/baseline/runs.ts). Every operation is one statement
 * (runs-sql.ts, runs-list-sql.ts); a write that carries an idempotency key is one transaction,
 * holding the key through `idempotently` (idempotency.ts). The create, the claim and most
 * transitions leave their notifications to `notify`, told once they committed
 * (deferred-notifications.ts); a write that rolled back tells it nothing.
 */
export function createRuns(db: Db, t: Tables, idempotently: Idempotently, statements: Statements, notify: DeferredNotifications): RunStore {
  const rows = async <R>(query: RawBuilder<unknown>, executor: Db | Tx = db): Promise<R[]> => (await query.execute(executor)).rows as R[];
  const hot = runStatements(db, t);
  const send = <R>(call: Call, tx?: Tx) => statements.run<R>(call.statement, call.values, tx);
  const followupsOf = prepared(
    sql`SELECT id, run_id, message, created_at, creator_uid FROM ${t.run_followups} WHERE run_id = $1 ORDER BY seq`.compile(db).sql,
  );

  const getRun = async (runId: string, teamUid?: string, executor: Db | Tx = db) => {
    const team = teamUid === undefined ? sql`` : sql` AND team_uid = ${teamUid}`;
    const [row] = await rows<RunRow>(sql`SELECT * FROM ${t.runs} WHERE id = ${runId}${team}`, executor);
    return row ? runFromRow(row) : undefined;
  };

  /** A create, and its notification once it committed when the statement left it to the store. */
  const created = async (input: CreateRunInput, call: Call): Promise<Idempotent<RunRecord>> => {
    const committed = () => {
      if (call.deferred) notify.committed(createdNotifications(input.run.id, input.run.state));
    };
    if (input.idempotency) {
      let wrote = false;
      const outcome = await idempotently(input.idempotency, async (tx) => {
        await send(call, tx);
        wrote = true;
        return { result: input.run, run: input.run };
      });
      // Committed (a replayed key wrote nothing).
      if (wrote) committed();
      return outcome;
    }
    await send(call);
    committed();
    return { result: input.run };
  };

  /** A transition's notifications once it committed, when the statement left them to the store. */
  const notifyTransition = (call: Call, input: TransitionRunInput, run: WrittenRun) => {
    if (!call.deferred) return;
    const { state } = input.patch;
    notify.committed(writtenNotifications(run, state !== undefined && state !== input.expect.state));
  };

  /** A transition, and its notifications once it committed when the statement left them to the store. */
  const transitioned = async (input: TransitionRunInput, call: Call): Promise<Idempotent<TransitionOutcome>> => {
    if (!input.idempotency) {
      const [row] = await send<RunJson<{ outcome_followups?: FollowupRow[] | null }>>(call);
      if (row) {
        notifyTransition(call, input, row.run);
        // Present only when asked and the statement could tell its read complete (runs-sql.ts `completeFollowups`).
        const followups = row.run.outcome_followups;
        const run = runFromRow(row.run);
        return { result: followups ? { applied: true, run, followups: followups.map(followupFromRow) } : { applied: true, run } };
      }
      return { result: { applied: false, run: await getRun(input.runId, input.teamUid) } };
    }
    try {
      let written: WrittenRun | undefined;
      const outcome = await idempotently(input.idempotency, async (tx) => {
        const [row] = await send<RunJson>(call, tx);
        if (!row) throw new NotApplied(undefined);
        written = row.run;
        const run = runFromRow(row.run);
        return { result: { applied: true, run }, run };
      });
      // Committed (a replayed key wrote nothing).
      if (written) notifyTransition(call, input, written);
      return outcome;
    } catch (error) {
      // Rolled back, key released: report the run as it is now.
      if (error instanceof NotApplied) return { result: { applied: false, run: await getRun(input.runId, input.teamUid) } };
      throw error;
    }
  };

  // Writes of runs under way (creates, claims, transitions). One alone notifies in its own commit:
  // nothing else of this store's then waits for the notification lock, and listeners hear it a
  // round trip sooner than after a send of its own (a pickup, a cancel). A write while others are
  // under way, or while a send is due, defers, and one send tells of them all.
  let writing = 0;
  const defer = () => writing > 0 || notify.busy();
  const counted = async <R>(write: () => Promise<R>): Promise<R> => {
    writing++;
    try {
      return await write();
    } finally {
      writing--;
    }
  };

  return {
    create(input) {
      // The run created is the one given: the insert answers nothing (as the memory store, which keeps it).
      const call = hot.insert(input, defer());
      return counted(() => created(input, call));
    },

    get: (runId, teamUid) => getRun(runId, teamUid),

    async list(query) {
      return (await rows<RunRow>(listRunsSql(t, query))).map(runFromRow);
    },

    transition(input): Promise<Idempotent<TransitionOutcome>> {
      const call = hot.transition(input, defer());
      return counted(() => transitioned(input, call));
    },

    async claimNext(input) {
      // The path is the state machine's (state-machine.ts `CLAIM`, `CLAIM_AND_START`).
      const call = hot.claim(input, input.path ?? CLAIM, defer());
      const [row] = await counted(() => send<RunJson<{ claimed_followups?: FollowupRow[] }>>(call));
      if (!row) return undefined;
      if (call.deferred) notify.committed(writtenNotifications(row.run, true));
      const run = runFromRow(row.run);
      const followups = row.run.claimed_followups;
      return followups ? { ...run, followups: followups.map(followupFromRow) } : run;
    },
    async queueStats() {
      // The queue is two partial indexes (migrations/0003_worker_hosts.ts): each one counted alone.
      const [row] = await rows<{ depth: string; oldest: Date | null }>(sql`
        SELECT sum(depth) AS depth, min(oldest) AS oldest FROM (
          SELECT count(*) AS depth, min(created_at) AS oldest FROM ${t.runs} WHERE state = 'QUEUED' AND worker_host IS NULL
          UNION ALL
          SELECT count(*), min(created_at) FROM ${t.runs} WHERE state = 'QUEUED' AND worker_host IS NOT NULL
        ) q`);
      return { depth: Number(row?.depth ?? 0), oldestCreatedAt: row?.oldest ? iso(row.oldest) : null };
    },

    async renewLease(input) {
      const [row] = await rows<RunRow>(sql`
        WITH renewed AS (
          UPDATE ${t.runs} SET lease_expires_at = ${input.leaseExpiresAt}::timestamptz
          WHERE id = ${input.runId} AND lease_worker_id = ${input.workerId} AND state IN (${sql.join(LEASED)})
          RETURNING *
        )
        SELECT * FROM renewed
        UNION ALL
        SELECT * FROM ${t.runs} WHERE id = ${input.runId} AND NOT EXISTS (SELECT 1 FROM renewed)`);
      return row ? runFromRow(row) : undefined;
    },

    async listExpiredLeases(now, limit) {
      const found = await rows<RunRow>(sql`
        SELECT * FROM ${t.runs}
        WHERE lease_worker_id IS NOT NULL AND lease_expires_at <= ${now}::timestamptz AND state IN (${sql.join(LEASED)})
        ORDER BY lease_expires_at, id LIMIT ${limit}`);
      return found.map(runFromRow);
    },

    async listRouted(limit) {
      const found = await rows<RunRow>(sql`
        SELECT * FROM ${t.runs} WHERE state = 'QUEUED' AND worker_host IS NOT NULL
        ORDER BY worker_host, created_at, id LIMIT ${limit}`);
      return found.map(runFromRow);
    },

    async listFollowups(runId) {
      return (await statements.run<FollowupRow>(followupsOf, [runId])).map(followupFromRow);
    },

    async getAttachment(teamUid, runId, fileName) {
      const [row] = await rows<{ run_id: string; file_name: string; mime_type: string; data: Buffer }>(sql`
        SELECT a.run_id, a.file_name, a.mime_type, coalesce(a.data, d.payload) AS data
        FROM ${t.run_attachments} a JOIN ${t.runs} r ON r.id = a.run_id
        -- An evaluated delivery's payload, stored once in its row.
        LEFT JOIN ${t.deliveries} d ON d.id = a.delivery_id
        WHERE a.run_id = ${runId} AND a.file_name = ${fileName} AND r.team_uid = ${teamUid}`);
      if (!row) return undefined;
      return { runId: row.run_id, fileName: row.file_name, mimeType: row.mime_type, data: new Uint8Array(row.data) };
    },
  };
}
