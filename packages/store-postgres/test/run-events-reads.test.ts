import { makeRun } from '@agentrun/core/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { openTestDatabase, type TestDatabase } from './support/database.js';

// A page read bounded in bytes (src/run-events.ts, `bounded`) converts each event's jsonb to text
// to measure it: only the `limit` events it picks, whatever plan reads them, so a page of a long
// transcript costs its own events, not the run's (docs/run-api.md, "A page").
let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase('run_events_reads');
});
afterAll(() => db?.close());

const NOW = '2026-01-01T00:00:00.000Z';
const EVENTS = 60;
const LIMIT = 4;

/** A plan node of EXPLAIN (FORMAT JSON), as far as this test reads it. */
interface PlanNode {
  'Node Type': string;
  Output?: string[];
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

/** How many rows had their `data` converted to text, over every node of the plan. */
function conversions(node: PlanNode): number {
  const here = (node.Output ?? []).some((column) => /\(\w+\.data\)::text/.test(column)) ? node['Actual Rows'] * node['Actual Loops'] : 0;
  return here + (node.Plans ?? []).reduce((sum, child) => sum + conversions(child), 0);
}

describe('a bounded read of run events', () => {
  it(`converts only the ${LIMIT} events it picks, on a plan that reads the whole run and sorts it`, async ({ skip }) => {
    if (!db.url) skip('needs a PostgreSQL server (a pool whose sessions take settings)');
    await db.freshStore();
    // No index scan: the plan PostgreSQL chose on stale statistics (a bitmap scan of the run's rows, then a sort).
    const url = new URL(db.url as string);
    url.searchParams.set('options', '-c enable_indexscan=off');
    const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
    try {
      const store = createPostgresStore({ pool, schema: db.schema, listen: false });
      const run = makeRun({ createdAt: NOW, updatedAt: NOW });
      await store.runs.create({ run, attachments: [] });
      await store.runEvents.append(
        run.id,
        Array.from({ length: EVENTS }, (_, i) => ({ at: NOW, type: 'output' as const, data: { text: `line ${i}` } })),
      );
      const page = await store.runEvents.list(run.id, { after: 0, limit: LIMIT, maxBytes: 2 ** 20 });
      expect(page.map((e) => e.id)).toEqual([1, 2, 3, 4]);

      const { rows } = await pool.query<{ name: string }>(
        `SELECT name FROM pg_prepared_statements WHERE name LIKE 'agentrun_%' AND statement LIKE '%octet_length%'`,
      );
      expect(rows).toHaveLength(1);
      const explained = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        // EXECUTE takes no bound parameters: the run's id (a UUID) is written in.
        `EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON) EXECUTE ${rows[0]?.name}('${run.id}', 0, ${LIMIT}, ${2 ** 20})`,
      );
      const plan = explained.rows[0]?.['QUERY PLAN'][0].Plan as PlanNode;
      expect(JSON.stringify(plan)).toContain('Sort');
      expect(conversions(plan)).toBe(LIMIT);
    } finally {
      await pool.end();
    }
  });
});
