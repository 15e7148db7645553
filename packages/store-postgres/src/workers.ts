import type { WorkerRecord, WorkerStore } from '@agentrun/core/store';
import { sql } from 'kysely';
import type { Db } from './db.js';
import { iso } from './rows.js';
import type { Tables } from './tables.js';

interface WorkerRow {
  id: string;
  host: string;
  unrouted: boolean;
  capacity: number;
  runs: { id: string; teamUid: string }[];
  executor: string;
  version: string;
  started_at: Date | string;
  last_seen_at: Date | string;
}

const fromRow = (r: WorkerRow): WorkerRecord => ({
  id: r.id,
  host: r.host,
  unrouted: r.unrouted,
  capacity: r.capacity,
  runs: r.runs.map((x) => ({ id: x.id, teamUid: x.teamUid })),
  executor: r.executor,
  version: r.version,
  startedAt: iso(r.started_at),
  lastSeenAt: iso(r.last_seen_at),
});

/** The workers' presence records (table `workers`, migration 0003_worker_hosts): one statement per operation. */
export function createWorkers(db: Db, t: Tables): WorkerStore {
  return {
    async heartbeat(w) {
      const runs = JSON.stringify(w.runs.map((x) => ({ id: x.id, teamUid: x.teamUid })));
      await sql`
        INSERT INTO ${t.workers} (id, host, unrouted, capacity, runs, executor, version, started_at, last_seen_at)
        VALUES (${w.id}, ${w.host}, ${w.unrouted}, ${w.capacity}, ${runs}::jsonb, ${w.executor}, ${w.version},
          ${w.startedAt}::timestamptz, ${w.lastSeenAt}::timestamptz)
        ON CONFLICT (id) DO UPDATE SET host = EXCLUDED.host, unrouted = EXCLUDED.unrouted, capacity = EXCLUDED.capacity,
          runs = EXCLUDED.runs, executor = EXCLUDED.executor, version = EXCLUDED.version,
          started_at = EXCLUDED.started_at, last_seen_at = EXCLUDED.last_seen_at`.execute(db);
    },
    async list({ seenSince }) {
      const { rows } = await sql<WorkerRow>`
        SELECT id, host, unrouted, capacity, runs, executor, version,
          started_at, last_seen_at
        FROM ${t.workers} WHERE last_seen_at >= ${seenSince}::timestamptz ORDER BY host, id`.execute(db);
      return rows.map(fromRow);
    },
    async remove(id) {
      await sql`DELETE FROM ${t.workers} WHERE id = ${id}`.execute(db);
    },
    async sweep({ seenBefore }) {
      const result = await sql`DELETE FROM ${t.workers} WHERE last_seen_at < ${seenBefore}::timestamptz`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}
