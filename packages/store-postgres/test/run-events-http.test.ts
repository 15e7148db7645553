import { describeRunEventsHttpConformance } from '@agentrun/core/testing';
import type pg from 'pg';
import { afterAll, describe } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { openTestDatabase } from './support/database.js';

// The transcript over HTTP on PostgreSQL: the stream is read from one store instance while another,
// on a pool and listening connection of its own (as another server process), writes; it wakes on
// that instance's `run.event` notifications. Needs a server (LISTEN): skipped on PGlite.
const db = await openTestDatabase('run_events_http');
const pools: pg.Pool[] = [];
afterAll(async () => {
  for (const pool of pools) await pool.end();
  await db.close();
});

describe.skipIf(!db.multiConnection)('postgres', () => {
  describeRunEventsHttpConformance('postgres', {
    create: async () => {
      await db.freshStore(); // empties the tables
      return createPostgresStore({ db: db.db, schema: db.schema, listen: { connectionString: db.url as string } });
    },
    other: () => {
      const pool = (db.newPool as (max: number) => pg.Pool)(2);
      pools.push(pool);
      return createPostgresStore({ pool, schema: db.schema });
    },
  });
});
