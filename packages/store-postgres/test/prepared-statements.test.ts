import { makeRun } from '@agentrun/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { openTestDatabase, scratchSchema, type TestDatabase } from './support/database.js';

// The queue's hot statements are named prepared statements on the store's pool (src/statements.ts,
// docs/production.md "Through a connection pooler"): named per schema, and off with `preparedStatements: false`.
let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase('prepared_statements');
});
afterAll(() => db?.close());

const NOW = '2026-01-01T00:00:00.000Z';
const claim = { workerId: 'w1', now: NOW, leaseExpiresAt: '2026-01-01T00:05:00.000Z' };

describe('named prepared statements', () => {
  it('a store on a pool prepares its hot statements once per connection; `preparedStatements: false` prepares none', async ({ skip }) => {
    if (!db.newPool) skip('needs a PostgreSQL server (a pool)');
    await db.freshStore();
    for (const preparedStatements of [true, false]) {
      const pool = db.newPool?.(1);
      if (!pool) return;
      try {
        const store = createPostgresStore({ pool, schema: db.schema, listen: false, preparedStatements });
        for (let i = 0; i < 2; i++) {
          await store.runs.create({ run: makeRun({ createdAt: NOW, updatedAt: NOW }), attachments: [] });
          expect(await store.runs.claimNext(claim)).toMatchObject({ state: 'CLAIMED', lease: { workerId: 'w1' } });
        }
        const { rows } = await pool.query<{ name: string }>(`SELECT name FROM pg_prepared_statements WHERE name LIKE 'agentrun_%'`);
        // One connection: the insert and the claim, each prepared once for both runs.
        expect(rows.length).toBe(preparedStatements ? 2 : 0);
      } finally {
        await pool.end();
      }
    }
  });

  it('the claim runs a generic plan once it has been planned a few times (its states are literals: runs-sql.ts)', async ({ skip }) => {
    if (!db.newPool) skip('needs a PostgreSQL server (a pool)');
    await db.freshStore();
    const pool = db.newPool?.(1);
    if (!pool) return;
    try {
      const store = createPostgresStore({ pool, schema: db.schema, listen: false });
      // Runs that are not queued, and statistics that know it: the table's shape that made a
      // generic plan without the queue's partial indexes cost more than a custom one.
      await pool.query(
        `INSERT INTO "${db.schema}".runs (id, team_uid, title, prompt, state, created_at, updated_at, source, creator, config, conversation_id)
        SELECT 'done-' || g, 'team-1', 't', 'p', 'SUCCEEDED', $1, $1, 'API', '{"uid":"user-1"}', '{}', 'c' FROM generate_series(1, 2000) g`,
        [NOW],
      );
      await pool.query(`ANALYZE "${db.schema}".runs`);
      for (let i = 0; i < 8; i++) {
        await store.runs.create({ run: makeRun({ createdAt: NOW, updatedAt: NOW }), attachments: [] });
        expect(await store.runs.claimNext(claim)).toMatchObject({ state: 'CLAIMED' });
      }
      const { rows } = await pool.query<{ statement: string; generic_plans: string }>(
        `SELECT statement, generic_plans FROM pg_prepared_statements WHERE name LIKE 'agentrun_%' AND statement LIKE '%FOR UPDATE SKIP LOCKED%'`,
      );
      expect(rows).toHaveLength(1);
      // PostgreSQL plans the first five calls for their values, then keeps a generic plan if it
      // costs no more: with the state a parameter, the queue's partial indexes were out of its reach.
      expect(Number(rows[0]?.generic_plans)).toBeGreaterThan(0);
    } finally {
      await pool.end();
    }
  });

  it('two stores of different schemas on one pool each run their own statements', async ({ skip }) => {
    if (!db.newPool) skip('needs a PostgreSQL server (a pool)');
    const pool = db.newPool?.(1);
    if (!pool) return;
    const other = scratchSchema('prepared_other');
    try {
      const a = createPostgresStore({ pool, schema: db.schema, listen: false });
      const b = createPostgresStore({ pool, schema: other, listen: false });
      await b.migrate();
      await db.freshStore();
      const inA = makeRun({ createdAt: NOW, updatedAt: NOW });
      const inB = makeRun({ createdAt: NOW, updatedAt: NOW });
      await a.runs.create({ run: inA, attachments: [] });
      await b.runs.create({ run: inB, attachments: [] });
      expect((await b.runs.claimNext(claim))?.id).toBe(inB.id);
      expect((await a.runs.claimNext(claim))?.id).toBe(inA.id);
      expect(await a.runs.claimNext(claim)).toBeUndefined();
      expect(await b.runs.get(inA.id)).toBeUndefined();
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS ${other} CASCADE`);
      await pool.end();
    }
  });
});
