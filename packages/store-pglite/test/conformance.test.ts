import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunRecord } from '@agentrun/core/store';
import { describeNotificationsConformance, describeStoreConformance } from '@agentrun/core/testing';
import type { PostgresStore } from '@agentrun/store-postgres';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect } from 'vitest';
import { openEmbeddedStore } from '../src/index.js';

// The suites every store passes, on one embedded store in a temporary data directory: its tables
// emptied before each test rather than a PGlite per test (each costs about a second to start).
let dataDir: string;
let store: PostgresStore;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'agentrun-embedded-conformance-'));
  store = await openEmbeddedStore({ dataDir });
}, 60_000);
afterAll(async () => {
  await store?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const table = (name: string) => sql.table(`${store.schema}.${name}`);

/**
 * The store, every table of agentrun's but the migrations' own emptied: by DELETE with the foreign
 * keys' triggers off (a TRUNCATE makes new files for every table: several times slower on PGlite).
 */
async function emptied(): Promise<PostgresStore> {
  const { rows } = await sql<{ name: string }>`SELECT tablename AS name FROM pg_tables
    WHERE schemaname = ${store.schema} AND tablename <> 'agentrun_migrations'`.execute(store.db);
  await store.db.transaction().execute(async (tx) => {
    await sql`SET LOCAL session_replication_role = replica`.execute(tx);
    for (const row of rows) await sql`DELETE FROM ${table(row.name)}`.execute(tx);
  });
  return store;
}

// One store for the file: each test's `destroy` leaves it open.
const shared = { create: emptied, destroy: () => {} };

describeStoreConformance('embedded', { ...shared, listCases: 40 });

describeNotificationsConformance('embedded', {
  ...shared,
  rollback: async (_store, run: RunRecord) => {
    // Through SQL of its own, as a host's transaction might: the triggers fire, then it rolls back.
    const rolledBack = new Error('roll back');
    const outcome = await store.db
      .transaction()
      .execute(async (tx) => {
        await sql`INSERT INTO ${table('runs')} (id, team_uid, title, prompt, state, created_at, updated_at, source, creator, config, conversation_id)
          VALUES (${run.id}, ${run.teamUid}, 't', 'p', 'QUEUED', now(), now(), 'API', '{}', '{}', ${run.conversationId})`.execute(tx);
        await sql`UPDATE ${table('runs')} SET state = 'CANCELLED' WHERE id = ${run.id}`.execute(tx);
        await sql`INSERT INTO ${table('run_followups')} (id, run_id, message, created_at, creator_uid)
          VALUES (${`f-${run.id}`}, ${run.id}, 'm', now(), 'u')`.execute(tx);
        throw rolledBack;
      })
      .catch((error) => error);
    expect(outcome).toBe(rolledBack);
  },
});
