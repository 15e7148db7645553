import type { StoreReadiness } from '@agentrun/core/store';
import { sql } from 'kysely';
import type { Db } from './db.js';
import { MIGRATIONS } from './migrations/index.js';
import type { Tables } from './tables.js';

/**
 * `Store.checkReady` for `GET /readyz` (docs/operations.md, "Health"): one statement that reaches
 * the database and reads the applied migrations; a schema `migrate()` never ran on has none
 * (to_regclass, so a missing ledger is an answer, not an error). A lost database throws, as
 * every store call does then.
 */
export async function checkReady(db: Db, t: Tables): Promise<StoreReadiness> {
  const ledger = `${t.schema}.agentrun_migrations`;
  const exists = await sql<{ present: boolean }>`SELECT to_regclass(${ledger}) IS NOT NULL AS present`.execute(db);
  const applied = exists.rows[0]?.present
    ? new Set((await sql<{ id: string }>`SELECT id FROM ${t.agentrun_migrations}`.execute(db)).rows.map((r) => r.id))
    : new Set<string>();
  return { pendingMigrations: MIGRATIONS.map((m) => m.id).filter((id) => !applied.has(id)) };
}
