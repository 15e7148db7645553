import { sql } from 'kysely';
import type { Db } from './db.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';

export interface MigrateResult {
  /** Migrations this call applied, in order. */
  applied: string[];
}

/**
 * Bring the schema up to date: apply every migration not yet recorded, in order, in one
 * transaction. Safe to call from several processes at once: a transaction-scoped advisory lock
 * (one per schema) makes the others wait, after which they find nothing left to do. Tables are
 * created in the connection's `search_path` schema.
 */
export async function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): Promise<MigrateResult> {
  return db.transaction().execute(async (tx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtext('agentrun.migrate:' || current_schema()))`.execute(tx);
    // Look before creating, so a role that may only read and write rows can call migrate() once
    // the schema is up to date (CREATE TABLE IF NOT EXISTS needs the CREATE privilege regardless).
    const exists = await sql<{ t: string | null }>`SELECT to_regclass('agentrun_migrations')::text AS t`.execute(tx);
    if (!exists.rows[0]?.t) {
      await sql`CREATE TABLE agentrun_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`.execute(tx);
    }
    const done = new Set((await sql<{ id: string }>`SELECT id FROM agentrun_migrations`.execute(tx)).rows.map((r) => r.id));
    const applied: string[] = [];
    for (const migration of [...migrations].sort((a, b) => a.id.localeCompare(b.id))) {
      if (done.has(migration.id)) continue;
      await sql.raw(migration.up).execute(tx);
      await sql`INSERT INTO agentrun_migrations (id) VALUES (${migration.id})`.execute(tx);
      applied.push(migration.id);
    }
    return { applied };
  });
}
