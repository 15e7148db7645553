import type { RunEventRecord, RunEventStore } from '@agentrun/core/store';
import { RUN_EVENTS_PER_RUN } from '@agentrun/core/store';
import { sql } from 'kysely';
import type { Db } from './db.js';
import { json } from './rows.js';
import { prepared, type Statements } from './statements.js';
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
export function createRunEvents(db: Db, t: Tables, statements: Statements): RunEventStore {
  // Named prepared statements of fixed text (statements.ts): an event stream reads a page per notification.
  const append = prepared(sql`SELECT ${t.fn('agentrun_append_run_events')}($1, $2::jsonb, $3)`.compile(db).sql);
  const page = prepared(
    sql`SELECT run_id, id, at, type, data FROM ${t.run_events} WHERE run_id = $1 AND id > $2 ORDER BY id LIMIT $3`.compile(db).sql,
  );
  return {
    async append(runId, events) {
      if (events.length === 0) return;
      const payload = events.map((e) => ({ at: e.at, type: e.type, data: e.data ?? null }));
      await statements.run(append, [runId, json(payload), RUN_EVENTS_PER_RUN]);
    },
    async list(runId, query) {
      const after = Math.max(0, Math.floor(query.after ?? 0));
      const rows = await statements.run<RunEventRow>(page, [runId, after, query.limit]);
      return rows.map((r) => ({ id: Number(r.id), runId: r.run_id, at: r.at.toISOString(), type: r.type, data: r.data }));
    },
  };
}
