import type { Store } from '@agentrun/core';
import { Kysely, PostgresDialect, type RawBuilder, sql } from 'kysely';
import pg from 'pg';
import type { Db } from '../../src/db.js';
import { createPostgresStore, migrate } from '../../src/index.js';
import { TABLE_NAMES } from '../../src/tables.js';

/**
 * Where Postgres tests run: `DATABASE_URL`, else the local server CI and developer machines have,
 * else (only outside CI) an in-process PGlite. Each test file gets its own schema through the
 * store's `schema` option, so files run in parallel against one server without seeing each other's
 * rows. Connections keep the server's default `search_path` (`"$user", public`, where agentrun's
 * tables are not), so a statement of the store that forgot its schema fails every test it is in.
 */
const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  kind: 'postgres' | 'pglite';
  /** Several connections and processes can share it (false on PGlite: skip such tests). */
  multiConnection: boolean;
  /** The schema this file owns: the store's `schema` option. */
  schema: string;
  /** The server's connection string (postgres only), for child processes; pass `schema` beside it. */
  url?: string;
  /** Connected to the database, the schema migrated. */
  db: Db;
  /** One of the schema's tables, qualified, for a test's own SQL: sql`SELECT … FROM ${database.table('runs')}`. */
  table(name: string): RawBuilder<unknown>;
  /** A store over `db`, with every table emptied first. */
  freshStore(): Promise<Store>;
  /** A new pool on the schema (postgres only): another "process" in the same test. */
  newPool?(max?: number): pg.Pool;
  close(): Promise<void>;
}

let serverUrl: Promise<string | undefined> | undefined;

/** The reachable server's URL, or undefined. In CI an unreachable server is an error. */
function findServer(): Promise<string | undefined> {
  serverUrl ??= (async () => {
    const url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return url;
    } catch (error) {
      if (process.env.CI === 'true') {
        throw new Error(`CI=true and no PostgreSQL answers at ${redact(url)}: ${(error as Error).message}`);
      }
      console.warn(
        `[store-postgres tests] no PostgreSQL at ${redact(url)}; using PGlite. Tests that need several connections or processes are skipped.`,
      );
      return undefined;
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return serverUrl;
}

export async function openTestDatabase(label: string): Promise<TestDatabase> {
  const schema = scratchSchema(label);
  const url = await findServer();
  return url ? openPostgres(url, schema) : openPglite(schema);
}

async function openPostgres(url: string, schema: string): Promise<TestDatabase> {
  const newPool = (max = 10) => new pg.Pool({ connectionString: url, max });
  const db = new Kysely({ dialect: new PostgresDialect({ pool: newPool() }) });
  await migrate(db, { schema }); // creates the schema
  const emptyAll = await emptier(db, schema);
  return {
    kind: 'postgres',
    multiConnection: true,
    schema,
    url,
    db,
    table: (name) => qualified(schema, name),
    newPool,
    freshStore: async () => {
      await emptyAll();
      return createPostgresStore({ db, schema });
    },
    async close() {
      await db.destroy();
      const cleanup = new pg.Client({ connectionString: url });
      await cleanup.connect();
      await cleanup.query(`DROP SCHEMA ${schema} CASCADE`);
      await cleanup.end();
    },
  };
}

async function openPglite(schema: string): Promise<TestDatabase> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pgliteDialect } = await import('@agentrun/store-pglite');
  const pglite = await PGlite.create();
  const db = new Kysely({ dialect: pgliteDialect(pglite) });
  await migrate(db, { schema });
  const emptyAll = await emptier(db, schema);
  return {
    kind: 'pglite',
    multiConnection: false,
    schema,
    db,
    table: (name) => qualified(schema, name),
    freshStore: async () => {
      await emptyAll();
      return createPostgresStore({ db, schema });
    },
    close: () => db.destroy(),
  };
}

const qualified = (schema: string, name: string) => sql.table(`${schema}.${name}`);

/** Every table of agentrun's but the migrations' own: what a fresh store empties. */
const TABLES = TABLE_NAMES.filter((name) => name !== 'agentrun_migrations');

/**
 * What a fresh store runs first: one transaction of `DELETE`s, each table after the tables whose
 * foreign keys point at it. Not `TRUNCATE`: it gives every table and index a new file, and with
 * `fsync` on that costs more than the test after it, while a test leaves only a few rows to delete.
 */
async function emptier(db: Db, schema: string): Promise<() => Promise<void>> {
  const { rows } = await sql<{ child: string; parent: string }>`
    SELECT c.relname AS child, p.relname AS parent
    FROM pg_constraint f
    JOIN pg_class c ON c.oid = f.conrelid
    JOIN pg_class p ON p.oid = f.confrelid
    WHERE f.contype = 'f' AND f.connamespace = ${schema}::regnamespace AND f.conrelid <> f.confrelid`.execute(db);
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (table: string) => {
    if (seen.has(table)) return;
    seen.add(table);
    for (const { child } of rows.filter((row) => row.parent === table)) visit(child);
    order.push(table);
  };
  for (const table of TABLES) visit(table);
  const statements = order.map((name) => sql`DELETE FROM ${qualified(schema, name)}`);
  return () =>
    db.transaction().execute(async (tx) => {
      for (const statement of statements) await statement.execute(tx);
    });
}

/** A scratch schema name for one test, unique across files and processes (nothing is created). */
export function scratchSchema(label: string): string {
  return `t_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
}

const redact = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]+@/, '//$1:***@');

/** A pool on the test database whose sessions default to `isolation`, as a server may be configured. */
export function poolWithIsolation(db: TestDatabase, isolation: 'read committed' | 'repeatable read', max = 10): pg.Pool {
  const url = new URL(db.url as string);
  url.searchParams.set('options', `-c default_transaction_isolation=${isolation.replace(' ', '\\ ')}`);
  return new pg.Pool({ connectionString: url.toString(), max });
}
