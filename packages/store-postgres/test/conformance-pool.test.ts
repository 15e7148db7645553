import { describeStoreConformance } from '@agentrun/core/testing';
import type pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { openTestDatabase, type TestDatabase } from './support/database.js';

// The same suite again, on a store given a `pg` pool: its hot statements go as named prepared
// statements (src/statements.ts), where conformance.test.ts's store (a Kysely instance) sends
// them unnamed. On PGlite, where there is no pool, it runs as conformance.test.ts does.
let database: TestDatabase;
let pool: pg.Pool | undefined;
beforeAll(async () => {
  database = await openTestDatabase('conformance_pool');
  pool = database.newPool?.(4);
});
afterAll(async () => {
  await pool?.end();
  await database?.close();
});

describeStoreConformance('postgres (pool, named statements)', {
  create: async () => {
    const fresh = await database.freshStore();
    return pool ? createPostgresStore({ pool, schema: database.schema, listen: false }) : fresh;
  },
  destroy: () => {},
  listCases: 20,
});
