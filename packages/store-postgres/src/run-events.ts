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

interface MeasuredRow extends Omit<RunEventRow, 'data'> {
  text: string;
  size: string | number;
}

/**
 * Each run's transcript (table `run_events`, docs/stores.md "Run events"). An append is one call
 * of `agentrun_append_run_events` (migrations/baseline/runs.ts), which numbers, caps and notifies; a page is
 * one indexed range read of the primary key. A read bounded by `maxBytes` measures each event as
 * the octets of its data's JSON text (`octet_length(data::text)`, jsonb's own text, which puts a
 * space after each `:` and `,`) and sends only the events that fit, so Node never receives the
 * rest; it measures at most `limit` rows, which core keeps small for large events.
 */
export function createRunEvents(db: Db, t: Tables, statements: Statements): RunEventStore {
  // Named prepared statements of fixed text (statements.ts): an event stream reads a page per notification.
  const append = prepared(sql`SELECT ${t.fn('agentrun_append_run_events')}($1, $2::jsonb, $3)`.compile(db).sql);
  const page = prepared(
    sql`SELECT run_id, id, at, type, data FROM ${t.run_events} WHERE run_id = $1 AND id > $2 ORDER BY id LIMIT $3`.compile(db).sql,
  );
  // jsonb's text is made once per row measured: the size is taken of it, and it is what is sent
  // (parsed here as the driver would parse jsonb), so a row costs one conversion, not two. It is
  // made of the `limit` rows picked, above their LIMIT: in the LIMIT's own query, a plan that reads
  // the run's rows and sorts them (the planner's choice on stale statistics) converts every event
  // of the run after `after` first, for every page. MATERIALIZED keeps the conversion in its own
  // step, so the levels above, which refer to the text three times, do not each convert again.
  const bounded = prepared(
    sql`WITH picked AS MATERIALIZED (
          SELECT run_id, id, at, type, data::text AS text FROM (
            SELECT run_id, id, at, type, data
            FROM ${t.run_events} WHERE run_id = $1 AND id > $2 ORDER BY id LIMIT $3
          ) rows
        )
        SELECT run_id, id, at, type, text, size FROM (
          SELECT run_id, id, at, type, text, size, sum(size) OVER (ORDER BY id) - size AS before FROM (
            SELECT run_id, id, at, type, text, octet_length(text) AS size FROM picked
          ) measured
        ) page WHERE before < $4 ORDER BY id`.compile(db).sql,
  );
  return {
    async append(runId, events) {
      if (events.length === 0) return;
      const payload = events.map((e) => ({ at: e.at, type: e.type, data: e.data ?? null }));
      await statements.run(append, [runId, json(payload), RUN_EVENTS_PER_RUN]);
    },
    async list(runId, query) {
      const after = Math.max(0, Math.floor(query.after ?? 0));
      if (query.maxBytes === undefined) {
        const rows = await statements.run<RunEventRow>(page, [runId, after, query.limit]);
        return rows.map((r) => ({ id: Number(r.id), runId: r.run_id, at: r.at.toISOString(), type: r.type, data: r.data }));
      }
      const rows = await statements.run<MeasuredRow>(bounded, [runId, after, query.limit, Math.max(1, Math.floor(query.maxBytes))]);
      return rows.map((r) => ({
        id: Number(r.id),
        runId: r.run_id,
        at: r.at.toISOString(),
        type: r.type,
        data: JSON.parse(r.text) as unknown,
        size: Number(r.size),
      }));
    },
  };
}
