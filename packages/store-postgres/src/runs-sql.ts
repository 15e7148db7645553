import type { CreateRunInput, RunPatch, TransitionRunInput } from '@agentrun/core/store';
import { type RawBuilder, sql } from 'kysely';
import { json, RUN_COLUMNS, RUN_JSON_COLUMNS, runToValues } from './rows.js';
import type { Tables } from './tables.js';

const isJsonColumn = (column: string | undefined) => column !== undefined && RUN_JSON_COLUMNS.has(column);

/**
 * The run and its attachments in one statement (atomic without a transaction): the
 * attachments insert selects from the inserted run, so neither exists without the other.
 * For `runs.create`; `deliveries.accept` writes its runs in `agentrun_accept_delivery`
 * (migration 0004) from the same columns (`runToRow`).
 */
export function insertRunSql(t: Tables, input: CreateRunInput): RawBuilder<unknown> {
  const values = runToValues(input.run).map((v, i) => (isJsonColumn(RUN_COLUMNS[i]) ? sql`${v}::jsonb` : sql`${v}`));
  const insert = sql`INSERT INTO ${t.runs} (${sql.join(RUN_COLUMNS.map((c) => sql.ref(c)))}) VALUES (${sql.join(values)}) RETURNING *`;
  if (input.attachments.length === 0) return insert;
  const files = input.attachments.map((a) => sql`(${a.fileName}, ${a.mimeType}, ${Buffer.from(a.data)}::bytea)`);
  return sql`WITH inserted AS (${insert}),
    files AS (
      INSERT INTO ${t.run_attachments} (run_id, file_name, mime_type, data)
      SELECT inserted.id, f.file_name, f.mime_type, f.data
      FROM inserted, (VALUES ${sql.join(files)}) AS f (file_name, mime_type, data)
    )
    SELECT * FROM inserted`;
}

/** The UPDATE of a compare-and-set transition; RETURNING the run when it applied. */
export function transitionSql(t: Tables, input: TransitionRunInput): RawBuilder<unknown> {
  const sets = patchAssignments(input.patch);
  sets.push(sql`updated_at = GREATEST(updated_at, ${input.now}::timestamptz)`);
  const where = [sql`id = ${input.runId}`, sql`state = ${input.expect.state}`];
  if (input.teamUid !== undefined) where.push(sql`team_uid = ${input.teamUid}`);
  if (input.expect.workerId !== undefined) where.push(sql`lease_worker_id = ${input.expect.workerId}`);
  if (input.expect.leaseExpiredBy !== undefined) where.push(sql`lease_expires_at <= ${input.expect.leaseExpiredBy}::timestamptz`);
  const update = sql`UPDATE ${t.runs} SET ${sql.join(sets)} WHERE ${sql.join(where, sql` AND `)} RETURNING *`;
  const f = input.followup;
  if (!f) return update;
  // The follow-up is written only if the update applied: it selects from the updated row.
  return sql`WITH updated AS (${update}),
    followup AS (
      INSERT INTO ${t.run_followups} (id, run_id, message, created_at, creator_uid)
      SELECT ${f.id}, id, ${f.message}, ${f.createdAt}::timestamptz, ${f.creatorUid} FROM updated
    )
    SELECT * FROM updated`;
}

/** SET assignments for the fields a patch gives (`undefined` leaves a field, `null` clears it). */
function patchAssignments(patch: RunPatch): RawBuilder<unknown>[] {
  const sets: RawBuilder<unknown>[] = [];
  if (patch.state !== undefined) sets.push(sql`state = ${patch.state}`);
  if (patch.statusMessage !== undefined) sets.push(sql`status_message = ${json(patch.statusMessage)}::jsonb`);
  if (patch.startedAt !== undefined) sets.push(sql`started_at = ${patch.startedAt}::timestamptz`);
  if (patch.sessionId !== undefined) sets.push(sql`session_id = ${patch.sessionId}`);
  if (patch.sessionLink !== undefined) sets.push(sql`session_link = ${patch.sessionLink}`);
  if (patch.attempts !== undefined) sets.push(sql`attempts = ${patch.attempts}`);
  if (patch.requestUsage !== undefined) sets.push(sql`request_usage = ${json(patch.requestUsage)}::jsonb`);
  if (patch.lease !== undefined) {
    sets.push(sql`lease_worker_id = ${patch.lease?.workerId ?? null}`);
    sets.push(sql`lease_expires_at = ${patch.lease?.expiresAt ?? null}::timestamptz`);
  }
  return sets;
}
