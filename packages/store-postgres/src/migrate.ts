import { sql } from 'kysely';
import type { Db } from './db.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';
import { schemaOption } from './schema-name.js';
import { tablesIn } from './tables.js';

export interface MigrateOptions {
  /** The schema of agentrun's tables, functions and migrations table. Default `'agentrun'`. */
  schema?: string;
  /** The migrations to apply. Default: this package's `MIGRATIONS`. */
  migrations?: readonly Migration[];
}

export interface MigrateResult {
  /** Migrations this call applied, in order. */
  applied: string[];
}

/**
 * Bring agentrun's schema up to date, in one transaction: create the schema and its migrations
 * table if missing, then apply every migration not yet recorded, in order. Safe to call from
 * several processes at once: a transaction-scoped advisory lock (one per schema) makes the others
 * wait, after which they find nothing left to do.
 *
 * A schema whose migrations table records none of these migrations but others (one made before
 * the migrations were squashed into a baseline, by a build that was never published) is refused
 * with a message saying so: applying the baseline over it would fail on its first table.
 */
export async function migrate(db: Db, options: MigrateOptions = {}): Promise<MigrateResult> {
  const schema = schemaOption(options.schema, 'migrate');
  const migrations = options.migrations ?? MIGRATIONS;
  const t = tablesIn(schema);
  // READ COMMITTED whatever the session's default: each statement after the lock sees what the
  // migrate() that held it before committed.
  return db
    .transaction()
    .setIsolationLevel('read committed')
    .execute(async (tx) => {
      await sql`SELECT pg_advisory_xact_lock(hashtext(${`agentrun.migrate:${schema}`}))`.execute(tx);
      // Look before creating, so a role that may only read and write rows can call migrate() once
      // the schema is up to date (CREATE SCHEMA and CREATE TABLE IF NOT EXISTS need the privilege
      // regardless).
      const [state] = (
        await sql<{ has_schema: boolean; has_ledger: boolean }>`
          SELECT to_regnamespace(${schema}) IS NOT NULL AS has_schema,
            to_regclass(${`${schema}.agentrun_migrations`}) IS NOT NULL AS has_ledger`.execute(tx)
      ).rows;
      if (!state?.has_schema) await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(schema)}`.execute(tx);
      if (!state?.has_ledger) {
        await sql`CREATE TABLE ${t.agentrun_migrations} (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`.execute(tx);
      }
      const done = new Set((await sql<{ id: string }>`SELECT id FROM ${t.agentrun_migrations}`.execute(tx)).rows.map((r) => r.id));
      const ordered = [...migrations].sort((a, b) => a.id.localeCompare(b.id));
      if (done.size > 0 && !ordered.some((m) => done.has(m.id))) {
        throw new Error(
          `agentrun migrate: schema "${schema}" holds agentrun tables from an unpublished development build (its migrations ${[...done].sort().slice(0, 3).join(', ')}, … are not this version's ${ordered[0]?.id}); drop the schema (DROP SCHEMA "${schema}" CASCADE) or choose another with the schema option`,
        );
      }
      const pending = ordered.filter((m) => !done.has(m.id));
      // Migrations name nothing by schema: their unqualified names land in agentrun's schema, and
      // functions record it with SET search_path FROM CURRENT (migrations/index.ts). pg_temp last:
      // a session's temporary table never stands in for one of ours. Reset at commit.
      if (pending.length > 0) await sql`SET LOCAL search_path TO ${sql.id(schema)}, pg_temp`.execute(tx);
      const applied: string[] = [];
      for (const migration of pending) {
        await sql.raw(migration.up).execute(tx);
        await sql`INSERT INTO ${t.agentrun_migrations} (id) VALUES (${migration.id})`.execute(tx);
        applied.push(migration.id);
      }
      return { applied };
    });
}
