import { type ReferenceServer, startReferenceServer } from '@agentrun/server';
import { createPostgresStore, type PostgresStore } from '@agentrun/store-postgres';
import { AgentRunClient, type ClientOptions, type Fetch } from '../src/index.js';

/**
 * The reference servers the client's tests run against (docs/client.md, "What the tests
 * prove"), on a memory store or on PostgreSQL, and clients calling a server's handler in process
 * (`agentrun.fetch`) or over HTTP.
 */

export type StoreKind = 'memory' | 'postgres';

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
const SECRET_KEY = new Uint8Array(32).fill(7);

/**
 * The PostgreSQL server to test on: `DATABASE_URL`, else the local one CI and developer machines
 * have (as packages/store-postgres/test/support/database.ts finds it). Undefined when none
 * answers, outside CI only: with CI=true a missing server fails the suite.
 */
export async function findPostgres(): Promise<string | undefined> {
  const url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const probe = createPostgresStore({ connectionString: url, listen: false, connectionTimeoutMillis: 3000, onError: () => {} });
  try {
    await probe.db.introspection.getSchemas();
    return url;
  } catch (error) {
    const where = url.replace(/\/\/([^:@/]+):[^@/]+@/, '//$1:***@');
    if (process.env.CI === 'true') throw new Error(`CI=true and no PostgreSQL answers at ${where}: ${(error as Error).message}`);
    console.warn(`[client tests] no PostgreSQL at ${where}; the Postgres half of the shared suite is skipped.`);
    return undefined;
  } finally {
    await probe.close();
  }
}

/**
 * The two servers of a suite on one kind of store, each on its own store (a schema of its own on
 * PostgreSQL) so that neither's worker takes the other's runs: `held`, whose demo agent works for
 * an hour (its runs stay cancellable), and `finishing`, whose demo agent finishes a run in
 * `finishMs` (for `wait()` and `stream()`).
 */
export interface TestServers {
  held: ReferenceServer;
  finishing: ReferenceServer;
  /** Stop both, and drop their schemas on PostgreSQL. */
  close(): Promise<void>;
}

export async function startServers(kind: StoreKind, options: { postgresUrl?: string; finishMs: number }): Promise<TestServers> {
  const schemas: string[] = [];
  const storeFor = async (label: string): Promise<PostgresStore | undefined> => {
    if (kind === 'memory') return undefined;
    if (!options.postgresUrl) throw new Error('startServers: the postgres kind needs postgresUrl');
    const schema = `t_client_${label}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    schemas.push(schema);
    const store = createPostgresStore({ connectionString: options.postgresUrl, schema });
    await store.migrate();
    return store;
  };
  const start = async (label: string, demoDurationMs: number) => {
    const store = await storeFor(label);
    return startReferenceServer({ port: 0, demoDurationMs, pollIntervalMs: 25, secretKey: SECRET_KEY, ...(store ? { store } : {}) });
  };
  const [held, finishing] = await Promise.all([start('held', 3_600_000), start('finishing', options.finishMs)]);
  return {
    held,
    finishing,
    async close() {
      await Promise.all([held.close({ graceMs: 0 }), finishing.close({ graceMs: 0 })]);
      if (schemas.length === 0) return;
      const admin = createPostgresStore({ connectionString: options.postgresUrl as string, listen: false });
      try {
        for (const schema of schemas) await admin.db.schema.dropSchema(schema).ifExists().cascade().execute();
      } finally {
        await admin.close();
      }
    },
  };
}

/** Calls the core handler directly, recording each request it passes on. */
export const inProcessFetch = (server: ReferenceServer, seen: Request[] = []): Fetch => {
  return async (input, init) => {
    const request = new Request(input, init);
    seen.push(request.clone());
    return server.agentrun.fetch(request);
  };
};

export const clientFor = (server: ReferenceServer, options: Partial<ClientOptions> = {}): AgentRunClient =>
  new AgentRunClient({ apiKey: server.apiKey, baseURL: 'http://agentrun.test', fetch: inProcessFetch(server), ...options });
