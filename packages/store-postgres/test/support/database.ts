import type { Store } from '@agentrun/core';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Db } from '../../src/db.js';
import { createPostgresStore, migrate } from '../../src/index.js';

/**
 * Where Postgres tests run: `DATABASE_URL`, else the local server CI and developer machines have,
 * else (only outside CI) an in-process PGlite. Each test file gets its own schema, so files run in
 * parallel against one server without seeing each other's rows.
 */
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  kind: 'postgres' | 'pglite';
  /** Several connections and processes can share it (false on PGlite: skip such tests). */
  multiConnection: boolean;
  /** The schema this file owns. */
  schema: string;
  /** A connection string whose connections use this schema (postgres only), for child processes. */
  url?: string;
  /** Connected to the schema, migrated. */
  db: Db;
  /** A store over `db`, with every table emptied first. */
  freshStore(): Promise<Store>;
  /** A new pool on the schema (postgres only): another "process" in the same test. */
  newPool?(max?: number): pg.Pool;
  close(): Promise<void>;
}

let serverUrl: Promise<string | undefined> | undefined;

/** The reachable server's URL, or undefined. In CI an unreachable server is an error. */
export function findServer(): Promise<string | undefined> {
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
  const schema = `t_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const url = await findServer();
  return url ? openPostgres(url, schema) : openPglite(schema);
}

async function openPostgres(baseUrl: string, schema: string): Promise<TestDatabase> {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = withSearchPath(baseUrl, schema);
  const newPool = (max = 10) => new pg.Pool({ connectionString: url, max });
  const db = new Kysely({ dialect: new PostgresDialect({ pool: newPool() }) });
  await migrate(db);
  return {
    kind: 'postgres',
    multiConnection: true,
    schema,
    url,
    db,
    newPool,
    freshStore: async () => {
      await truncateAll(db);
      return createPostgresStore({ db });
    },
    async close() {
      await db.destroy();
      const cleanup = new pg.Client({ connectionString: baseUrl });
      await cleanup.connect();
      await cleanup.query(`DROP SCHEMA ${schema} CASCADE`);
      await cleanup.end();
    },
  };
}

async function openPglite(schema: string): Promise<TestDatabase> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pgliteDialect } = await import('./pglite-dialect.js');
  const pglite = await PGlite.create();
  await pglite.exec(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}`);
  const db = new Kysely({ dialect: pgliteDialect(pglite) });
  await migrate(db);
  return {
    kind: 'pglite',
    multiConnection: false,
    schema,
    db,
    freshStore: async () => {
      await truncateAll(db);
      return createPostgresStore({ db });
    },
    close: () => db.destroy(),
  };
}

async function truncateAll(db: Db): Promise<void> {
  await sql`TRUNCATE runs, run_followups, run_attachments, idempotency_keys, api_keys, factories, team_secrets, webhooks, automations, deliveries, rate_limit_events`.execute(
    db,
  );
}

/** A connection string whose sessions start in `schema` (libpq `options`, honoured by pg). */
export function withSearchPath(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

const redact = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]+@/, '//$1:***@');

/** A pool on the test schema whose sessions default to `isolation`, as a server may be configured. */
export function poolWithIsolation(db: TestDatabase, isolation: 'read committed' | 'repeatable read', max = 10): pg.Pool {
  const url = new URL(db.url as string);
  url.searchParams.set('options', `-c search_path=${db.schema} -c default_transaction_isolation=${isolation.replace(' ', '\\ ')}`);
  return new pg.Pool({ connectionString: url.toString(), max });
}
