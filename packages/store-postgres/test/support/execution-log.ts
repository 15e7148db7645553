import { sql } from 'kysely';
import type { Db } from '../../src/db.js';

/**
 * A table where test executors write down every execution they start (and whether it was
 * aborted), so a test can prove from outside the worker processes that each run was executed
 * exactly once. It lives in the test file's schema (named in every statement), next to the store's tables.
 */
const table = (schema: string) => sql.table(`${schema}.test_executions`);

type ExecutionEvent = 'started' | 'aborted' | 'finished';

export interface ExecutionEntry {
  runId: string;
  workerId: string;
  attempt: number;
  event: ExecutionEvent;
}

/** Create the table (or empty it). Call before starting worker processes: concurrent DDL races. */
export async function resetExecutionLog(db: Db, schema: string): Promise<void> {
  await sql`CREATE TABLE IF NOT EXISTS ${table(schema)} (
    seq bigserial PRIMARY KEY,
    run_id text NOT NULL,
    worker_id text NOT NULL,
    attempt int NOT NULL,
    event text NOT NULL,
    at timestamptz NOT NULL DEFAULT clock_timestamp()
  )`.execute(db);
  await sql`TRUNCATE ${table(schema)}`.execute(db);
}

export async function recordExecution(db: Db, schema: string, entry: ExecutionEntry): Promise<void> {
  await sql`INSERT INTO ${table(schema)} (run_id, worker_id, attempt, event)
    VALUES (${entry.runId}, ${entry.workerId}, ${entry.attempt}, ${entry.event})`.execute(db);
}

export async function readExecutionLog(db: Db, schema: string): Promise<ExecutionEntry[]> {
  const { rows } = await sql<{ run_id: string; worker_id: string; attempt: number; event: ExecutionEvent }>`
    SELECT run_id, worker_id, attempt, event FROM ${table(schema)} ORDER BY seq`.execute(db);
  return rows.map((r) => ({ runId: r.run_id, workerId: r.worker_id, attempt: r.attempt, event: r.event }));
}
