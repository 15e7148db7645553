import type { RunEventRecord, RunEventStore } from '@agentrun/core/store';
import { RUN_EVENTS_PER_RUN } from '@agentrun/core/store';
import { sql } from 'kysely';
import type { Db } from './db.js';
import { json } from './rows.js';
import type { Tables } from './tables.js';

interface RunEventRow {
  run_id: string;
  id: string;
  at: Date;
  type: RunEventRecord['type'];
  data: unknown;
}

/**
 * Each run's transcript (table `run_events`, docs/stores.md "Run events"). An append is one call
 * of `agentrun_append_run_events` (migration 0008), which numbers, caps and notifies; a page is
 * one indexed range read of the primary key.
 */
export function createRunEvents(db: Db, t: Tables): RunEventStore {
  return {
    async append(runId, events) {
      if (events.length === 0) return;
      const payload = events.map((e) => ({ at: e.at, type: e.type, data: e.data ?? null }));
      await sql`SELECT ${t.fn('agentrun_append_run_events')}(${runId}, ${json(payload)}::jsonb, ${RUN_EVENTS_PER_RUN})`.execute(db);
    },
    async list(runId, query) {
      const after = Math.max(0, Math.floor(query.after ?? 0));
      const { rows } = await sql<RunEventRow>`SELECT * FROM ${t.run_events}
        WHERE run_id = ${runId} AND id > ${after} ORDER BY id LIMIT ${query.limit}`.execute(db);
      return rows.map((r) => ({ id: Number(r.id), runId: r.run_id, at: r.at.toISOString(), type: r.type, data: r.data }));
    },
  };
}
