import type { AuditEventRecord, FireScheduleOutcome, ScheduleRecord, ScheduleStore } from '@agentrun/core/store';
import { type RawBuilder, sql } from 'kysely';
import { withAudit } from './audit.js';
import type { Db, Tx } from './db.js';
import { iso, json, type RunRow, runFromRow } from './rows.js';
import { insertRunSql } from './runs-sql.js';
import type { Tables } from './tables.js';

interface ScheduleRow {
  team_uid: string;
  id: string;
  factory_uid: string | null;
  name: string;
  cron_schedule: string;
  time_zone: string;
  enabled: boolean;
  prompt: string;
  agent_config: ScheduleRecord['agentConfig'];
  agent_uid: string | null;
  created_by: ScheduleRecord['createdBy'];
  owner: ScheduleRecord['owner'];
  created_at: Date;
  updated_at: Date;
  next_due_at: Date | null;
  last_ran_at: Date | null;
  last_spawn_error: string | null;
}

const isoOrNull = (d: Date | null) => (d === null ? null : iso(d));

const fromRow = (r: ScheduleRow): ScheduleRecord => ({
  id: r.id,
  teamUid: r.team_uid,
  factoryUid: r.factory_uid,
  name: r.name,
  cronSchedule: r.cron_schedule,
  timeZone: r.time_zone,
  enabled: r.enabled,
  prompt: r.prompt,
  agentConfig: r.agent_config,
  agentUid: r.agent_uid,
  createdBy: r.created_by,
  owner: r.owner,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
  nextDueAt: isoOrNull(r.next_due_at),
  lastRanAt: isoOrNull(r.last_ran_at),
  lastSpawnError: r.last_spawn_error,
});

/**
 * Create or replace one schedule in one statement: a replace keeps created_at, created_by and
 * last_ran_at (xmax is 0 only on a row this statement inserted). The definitions write
 * (definitions.ts) uses it in its transaction.
 */
export async function putScheduleRow(q: Db | Tx, t: Tables, s: ScheduleRecord): Promise<{ created: boolean }> {
  const { rows } = await sql<{ created: boolean }>`
    INSERT INTO ${t.schedules} (team_uid, id, factory_uid, name, cron_schedule, time_zone, enabled, prompt, agent_config, agent_uid,
      created_by, owner, created_at, updated_at, next_due_at, last_ran_at, last_spawn_error)
    VALUES (${s.teamUid}, ${s.id}, ${s.factoryUid}, ${s.name}, ${s.cronSchedule}, ${s.timeZone}, ${s.enabled}, ${s.prompt},
      ${json(s.agentConfig)}::jsonb, ${s.agentUid}, ${json(s.createdBy)}::jsonb, ${json(s.owner)}::jsonb, ${s.createdAt}::timestamptz,
      ${s.updatedAt}::timestamptz, ${s.nextDueAt}::timestamptz, ${s.lastRanAt}::timestamptz, ${s.lastSpawnError})
    ON CONFLICT (team_uid, id) DO UPDATE SET factory_uid = EXCLUDED.factory_uid, name = EXCLUDED.name,
      cron_schedule = EXCLUDED.cron_schedule, time_zone = EXCLUDED.time_zone, enabled = EXCLUDED.enabled, prompt = EXCLUDED.prompt,
      agent_config = EXCLUDED.agent_config, agent_uid = EXCLUDED.agent_uid, owner = EXCLUDED.owner, updated_at = EXCLUDED.updated_at,
      next_due_at = EXCLUDED.next_due_at, last_spawn_error = EXCLUDED.last_spawn_error
    RETURNING (xmax = 0) AS created`.execute(q);
  return { created: rows[0]?.created === true };
}

/** The `schedules` and `schedule_fires` tables (docs/schedules.md). */
export function createSchedules(db: Db, t: Tables): ScheduleStore {
  const rows = async <R>(query: RawBuilder<unknown>, executor: Db | Tx = db): Promise<R[]> => (await query.execute(executor)).rows as R[];
  const audited = <T>(audit: AuditEventRecord | undefined, write: (q: Db | Tx) => Promise<T>, changed: (result: T) => boolean) =>
    withAudit(db, t, audit, write, changed);
  return {
    async get(teamUid, id) {
      const [row] = await rows<ScheduleRow>(sql`SELECT * FROM ${t.schedules} WHERE team_uid = ${teamUid} AND id = ${id}`);
      return row ? fromRow(row) : undefined;
    },
    async list(teamUid) {
      return (await rows<ScheduleRow>(sql`SELECT * FROM ${t.schedules} WHERE team_uid = ${teamUid} ORDER BY name, id`)).map(fromRow);
    },
    async put(s, audit) {
      return audited(
        audit,
        (q) => putScheduleRow(q, t, s),
        () => true,
      );
    },
    async delete(teamUid, id, audit) {
      const write = async (q: Db | Tx) =>
        Number((await sql`DELETE FROM ${t.schedules} WHERE team_uid = ${teamUid} AND id = ${id}`.execute(q)).numAffectedRows ?? 0) > 0;
      return audited(audit, write, (deleted) => deleted);
    },
    async listDue(now, limit) {
      return (
        await rows<ScheduleRow>(
          sql`SELECT * FROM ${t.schedules} WHERE enabled AND next_due_at <= ${now}::timestamptz ORDER BY next_due_at, team_uid, id LIMIT ${limit}`,
        )
      ).map(fromRow);
    },
    async nextDueAt() {
      const [row] = await rows<{ at: Date | null }>(
        sql`SELECT min(next_due_at) AS at FROM ${t.schedules} WHERE enabled AND next_due_at IS NOT NULL`,
      );
      return row?.at ? iso(row.at) : null;
    },
    async fire(input): Promise<FireScheduleOutcome> {
      return db.transaction().execute(async (tx) => {
        // The compare-and-set on next_due_at: a second process blocks on the row lock, then finds
        // it moved and writes nothing.
        const fired = input.dueAt !== undefined && input.run !== undefined;
        const moved = await rows<{ id: string }>(
          sql`UPDATE ${t.schedules} SET next_due_at = ${input.nextDueAt}::timestamptz,
            ${fired ? sql`last_ran_at = ${input.dueAt}::timestamptz, last_spawn_error = NULL` : sql`last_spawn_error = coalesce(${input.spawnError ?? null}, last_spawn_error)`}
          WHERE team_uid = ${input.teamUid} AND id = ${input.scheduleId} AND enabled AND next_due_at = ${input.expectNextDueAt}::timestamptz
          RETURNING id`,
          tx,
        );
        if (moved.length === 0) return { kind: 'stale' };
        if (!fired || !input.run) return { kind: 'advanced' };
        // The exactly-once rule: a due time claimed before (by a save that set the same next due time) starts nothing again.
        const claimed = await rows<{ due_at: Date }>(
          sql`INSERT INTO ${t.schedule_fires} (team_uid, schedule_id, due_at, run_id)
          VALUES (${input.teamUid}, ${input.scheduleId}, ${input.dueAt}::timestamptz, ${input.run.run.id})
          ON CONFLICT DO NOTHING RETURNING due_at`,
          tx,
        );
        if (claimed.length === 0) return { kind: 'advanced' };
        const [row] = await rows<RunRow>(insertRunSql(t, input.run), tx);
        return { kind: 'fired', run: runFromRow(row as RunRow) };
      });
    },
  };
}
