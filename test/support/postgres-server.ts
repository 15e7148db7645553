import { type ReferenceServer, type ReferenceServerOptions, startReferenceServer } from '@agentrun/server';
import { createPostgresStore, type PostgresStore } from '@agentrun/store-postgres';
import pg from 'pg';

// The PostgreSQL setup of the end-to-end files that run the reference server on Postgres
// (sdk-postgres, schedules-postgres, python-client-postgres): the server the tests use
// (docs/development.md, "PostgreSQL in tests"), a probe that skips a file on a machine without
// it, and a reference server on a store in a schema of the file's own, dropped when it closes.

/** `DATABASE_URL`, else the local server the tests use. */
const testPostgresUrl = (): string => process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Whether the server answers. Outside CI a machine without one skips the file, with a warning
 * naming `label`; with `CI=true` the file fails instead.
 */
export async function postgresReachable(label: string): Promise<boolean> {
  const url = testPostgresUrl();
  const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await probe.connect();
    return true;
  } catch (error) {
    if (process.env.CI === 'true') throw error;
    console.warn(`[${label}] no PostgreSQL at ${url}: skipped`);
    return false;
  } finally {
    await probe.end().catch(() => {});
  }
}

export interface PostgresReferenceServer {
  server: ReferenceServer;
  store: PostgresStore;
  /** Close the server, then drop the schema. */
  close(): Promise<void>;
}

/**
 * A reference server on a free port over a PostgreSQL store in a fresh schema `t_<label>_<pid>_<random>`,
 * migrated; `close()` drops the schema after the server.
 */
export async function startPostgresReferenceServer(
  label: string,
  options: Omit<ReferenceServerOptions, 'store' | 'port'> = {},
): Promise<PostgresReferenceServer> {
  const url = testPostgresUrl();
  const schema = `t_${label}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const store = createPostgresStore({ connectionString: url, schema });
  const dropSchema = async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    } finally {
      await admin.end();
    }
  };
  let server: ReferenceServer;
  try {
    await store.migrate();
    server = await startReferenceServer({ port: 0, store, ...options });
  } catch (error) {
    await store.close();
    await dropSchema();
    throw error;
  }
  return {
    server,
    store,
    async close() {
      try {
        await server.close();
      } finally {
        await dropSchema();
      }
    },
  };
}
