import { sql } from 'kysely';
import type { Tx } from './db.js';

/**
 * Installs from before the `schema` option kept agentrun's tables in the connection's current
 * schema (`public`, or wherever its `search_path` led). These are the objects such an install can
 * hold: the tables of migrations 0001-0005 and the migrations table, and the two functions of
 * 0004. The list is closed: later migrations only ever run in agentrun's own schema.
 * Indexes, constraints, row types and the identity sequence of `run_followups` move with their
 * table (ALTER TABLE … SET SCHEMA).
 */
const LEGACY_TABLES = [
  'agentrun_migrations',
  'runs',
  'run_followups',
  'run_attachments',
  'idempotency_keys',
  'api_keys',
  'factories',
  'team_secrets',
  'webhooks',
  'automations',
  'deliveries',
  'rate_limit_events',
];
const LEGACY_FUNCTIONS = ['agentrun_rate_admit', 'agentrun_accept_delivery'];

/**
 * Move agentrun's objects from `from` (the connection's current schema, where the migrations table
 * was found) into `to`, in the caller's transaction: all of them or, on an error, none. Refuses,
 * naming them, when `to` already has a table of one of those names. Returns what moved, e.g.
 * `['table runs', …, 'function agentrun_rate_admit']`.
 */
export async function moveLegacyLayout(tx: Tx, from: string, to: string): Promise<string[]> {
  const tablesIn = async (schema: string) =>
    (
      await sql<{ name: string }>`
        SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = ${schema} AND c.relkind IN ('r', 'p') AND c.relname = ANY(${LEGACY_TABLES})`.execute(tx)
    ).rows.map((r) => r.name);
  const tables = await tablesIn(from);
  const taken = await tablesIn(to);
  const clash = tables.filter((name) => taken.includes(name));
  if (clash.length > 0) {
    throw new Error(
      `agentrun migrate: cannot move agentrun's tables from schema "${from}" into "${to}": "${to}" already has ${clash.map((n) => `"${n}"`).join(', ')} (docs/production.md, "Upgrading from tables in the connection's schema")`,
    );
  }
  const moved: string[] = [];
  for (const name of LEGACY_TABLES.filter((n) => tables.includes(n))) {
    await sql`ALTER TABLE ${sql.id(from, name)} SET SCHEMA ${sql.id(to)}`.execute(tx);
    moved.push(`table ${name}`);
  }
  const functions = await sql<{ name: string; args: string }>`
    SELECT p.proname AS name, pg_get_function_identity_arguments(p.oid) AS args
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = ${from} AND p.proname = ANY(${LEGACY_FUNCTIONS})
    ORDER BY p.proname`.execute(tx);
  for (const f of functions.rows) {
    // The identity arguments come from the catalog (names and types, e.g. `p_key text, …`).
    await sql`ALTER FUNCTION ${sql.id(from, f.name)}(${sql.raw(f.args)}) SET SCHEMA ${sql.id(to)}`.execute(tx);
    moved.push(`function ${f.name}`);
  }
  return moved;
}
