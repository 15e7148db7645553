import { randomBytes } from 'node:crypto';
import type { Store } from '@agentrun/core';
import type { BlobStore } from '@agentrun/core/store';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { createAgentIdentities } from './agent-identities.js';
import { createApiKeys } from './api-keys.js';
import { createArtifacts } from './artifacts.js';
import { createAudit } from './audit.js';
import { createPostgresBlobs } from './blobs.js';
import { createCallbacks } from './callbacks.js';
import { createControlPlane } from './control-plane.js';
import type { Db } from './db.js';
import { createDeferredNotifications } from './deferred-notifications.js';
import { createDefinitions } from './definitions.js';
import { createEnvironments } from './environments.js';
import { createFactorySources } from './factory-sources.js';
import { createIdempotency } from './idempotency.js';
import { createInboxReads } from './inbox.js';
import { createIngress } from './ingress.js';
import { type MigrateResult, migrate } from './migrate.js';
import { createPostgresNotifications } from './notifications.js';
import { notifyChannel } from './notify-channel.js';
import { checkReady } from './readiness.js';
import { createRepositories } from './repositories.js';
import { createRunEvents } from './run-events.js';
import { createRuns } from './runs.js';
import { createSchedules } from './schedules.js';
import { schemaOption } from './schema-name.js';
import { createStatements, prepared, type Statements } from './statements.js';
import { createStats } from './stats.js';
import { tablesIn } from './tables.js';
import { isUnavailableError } from './unavailable.js';
import { createWorkers } from './workers.js';

/**
 * Where the store's connections come from, in the style of Kysely's dialects: hand over a
 * `Kysely` instance you own, a `pg` pool you own, or a connection string (the store then owns
 * the pool and `close()` ends it); and the schema its tables live in.
 */
export type PostgresStoreOptions = PostgresSchemaOption &
  PostgresListenOption &
  PostgresPreparedOption &
  ({ db: Db } | { pool: pg.Pool } | PostgresConnectionStringOptions);

export interface PostgresListenOption {
  /**
   * The connection `store.notifications` LISTENs on: one of its own, never the pool's, open while
   * anyone listens (a worker does). Default: for `connectionString`, that string; for `pool`, the
   * pool's settings; for `db`, none (a Kysely instance does not say how to connect), so there
   * `notifications` is undefined, and workers poll, unless this is given. `false`: no
   * notifications. `onError` hears a lost connection once per outage (default: one
   * `console.error` line, or the `onError` of a `connectionString` store). docs/stores.md,
   * "Notifications".
   */
  listen?: false | PostgresListenOptions;
}

export interface PostgresListenOptions extends pg.ClientConfig {
  onError?: (error: Error) => void;
}

export interface PostgresPreparedOption {
  /**
   * The hot statements of the queue (a run's create, claim and transitions, the follow-ups read,
   * the transcript's append and page) and of the webhook ingress (prepared.ts) are named prepared
   * statements on the store's `pg` pool, prepared
   * once per connection (statements.ts). `false` sends them unnamed, for a pooler that cannot keep
   * a connection's prepared statements (PgBouncer before 1.21, or with `max_prepared_statements = 0`,
   * in transaction mode). A store given a Kysely instance (`db`) always sends them unnamed.
   * Default `true` (docs/production.md, "Through a connection pooler").
   */
  preparedStatements?: boolean;
}

export interface PostgresSchemaOption {
  /**
   * The schema holding every table, index and function of agentrun and its migrations table,
   * named in every statement (the connections' `search_path` plays no part). A plain SQL
   * identifier; `migrate()` creates it. Default `'agentrun'` (docs/production.md, "Where the
   * tables go: the `schema` option").
   */
  schema?: string;
}

export interface PostgresConnectionStringOptions {
  connectionString: string;
  poolSize?: number;
  /**
   * Called when the pool loses an idle connection (the server restarted, a backend was
   * terminated, an idle timeout): the connection is dropped and the next query opens a new
   * one. Default: one `console.error` line (the connection string is never printed).
   */
  onError?: (error: Error) => void;
  /** How long a query waits for a connection before it fails (answered 503). Default 5000 ms. */
  connectionTimeoutMillis?: number;
}

/** The PostgreSQL store: a `Store`, plus what a host needs to run it. */
export interface PostgresStore extends Store {
  /** Apply pending migrations (safe from several processes at once). Call once at start. */
  migrate(): Promise<MigrateResult>;
  /** The Kysely instance the store uses. */
  readonly db: Db;
  /** The schema of its tables (the `schema` option, checked). */
  readonly schema: string;
  close(): Promise<void>;
}

/**
 * The PostgreSQL Store. Tables live in the `schema` option's schema (default `agentrun`); run
 * `migrate()` first. Every operation is one statement, or one transaction where it writes several
 * tables. A bad option is a TypeError here, before any connection is made.
 */
export function createPostgresStore(options: PostgresStoreOptions): PostgresStore {
  const schema = schemaOption(options.schema, 'createPostgresStore');
  const t = tablesIn(schema);
  const { db, owned, pool } = connect(options);
  const statements = createStatements(db, options.preparedStatements === false ? undefined : pool);
  // This store's name in what it sends after its commits: its own listener drops their echo.
  const origin = randomBytes(9).toString('base64url');
  const notifications = listenerOf(options, schema, origin);
  const notify = createDeferredNotifications({
    origin,
    send: sendNotifications(statements, schema),
    ...(notifications ? { local: notifications.publish } : {}),
    onError: 'onError' in options && options.onError ? options.onError : logUnsent,
  });

  // One file per part of the Store port, as in core's store/ (docs/stores.md, "The shape of the
  // interface"); the run store's keyed writes hold their key through the idempotency part.
  const { idempotency, idempotently } = createIdempotency(db, t);

  return {
    runs: createRuns(db, t, idempotently, statements, notify),
    runEvents: createRunEvents(db, t, statements),
    artifacts: createArtifacts(db, t),
    idempotency,
    apiKeys: createApiKeys(db, t),
    ...createControlPlane(db, t),
    definitions: createDefinitions(db, t),
    environments: createEnvironments(db, t),
    agentIdentities: createAgentIdentities(db, t),
    schedules: createSchedules(db, t),
    callbacks: createCallbacks(db, t),
    ...createIngress(db, t, statements),
    audit: createAudit(db, t),
    repositories: createRepositories(db, t),
    factorySources: createFactorySources(db, t),
    inboxReads: createInboxReads(db, t),
    workers: createWorkers(db, t),
    stats: createStats(db, t),
    db,
    schema,
    migrate: () => migrate(db, { schema }),
    isUnavailable: isUnavailableError,
    checkReady: () => checkReady(db, t),
    ...(notifications ? { notifications } : {}),
    async close() {
      await notifications?.close();
      await notify.close();
      if (owned) await db.destroy();
    },
  };
}

/**
 * Artifacts' bytes in this store's database and schema, on its pool (blobs.ts; docs/artifacts.md,
 * "Blob storage"): pass it as `createAgentRun`'s `blobs`.
 */
export function createPostgresBlobStore(store: Pick<PostgresStore, 'db' | 'schema'>): BlobStore {
  return createPostgresBlobs(store.db, tablesIn(store.schema));
}

/** The default report of a lost connection: one line, the error's message only (never the connection string). */
const logLostConnection = (error: Error) => console.error(`[agentrun] postgres: connection lost (${error.message})`);

/**
 * Keep a pool's lost connections from ending the process. A connection the server closes emits
 * 'error': on the pool while idle, and on the client itself while checked out between two
 * queries (inside a transaction, say); either one without a listener is an unhandled 'error'
 * event. The broken client is dropped (pg removes an idle one; a checked-out one fails its next
 * query and is released as broken), and the next checkout connects anew. Call it on a pool you
 * pass in yourself (docs/production.md).
 */
export function survivePoolErrors(pool: pg.Pool, onError: (error: Error) => void = logLostConnection): void {
  // One report per lost connection: a terminated client emits the server's error, then
  // "Connection terminated unexpectedly" when the socket closes, and the pool re-emits an idle
  // client's error. The first one says why.
  const reported = new WeakSet<object>();
  const once = (client: object, error: Error) => {
    if (reported.has(client)) return;
    reported.add(client);
    onError(error);
  };
  pool.on('error', (error, client) => once(client, error));
  pool.on('connect', (client) => {
    client.on('error', (error) => once(client, error));
  });
}

/**
 * The store's send of notifications after its commits (deferred-notifications.ts): one statement
 * of its own, no write, so its commit holds the notification lock without a WAL flush.
 */
function sendNotifications(statements: Statements, schema: string) {
  // The payloads as one JSON array: no driver's array encoding needed (a Kysely dialect of the host's).
  const statement = prepared(
    `SELECT count(pg_notify('${notifyChannel(schema).replaceAll("'", "''")}', p)) FROM json_array_elements_text($1::json) p`,
  );
  return async (payloads: string[]) => void (await statements.run(statement, [JSON.stringify(payloads)]));
}

/** The default report of notifications that could not be sent (its message only). */
const logUnsent = (error: Error) =>
  console.error(`[agentrun] postgres: notifications not sent (${error.message}); other processes' workers poll`);

/** The notifications of the store, on a connection of their own, when it knows how to make one. */
function listenerOf(options: PostgresStoreOptions, schema: string, origin: string) {
  if (options.listen === false) return undefined;
  let config: pg.ClientConfig;
  let onError: (error: Error) => void = logLostListener;
  if (options.listen) {
    const { onError: given, ...rest } = options.listen;
    config = rest;
    if (given) onError = given;
  } else if ('pool' in options) config = options.pool.options;
  else if ('connectionString' in options) {
    config = { connectionString: options.connectionString, connectionTimeoutMillis: options.connectionTimeoutMillis ?? 5000 };
    if (options.onError) onError = options.onError;
  } else return undefined;
  // keepAlive: a connection cut without a word (a network partition) is noticed and replaced.
  const clientConfig: pg.ClientConfig = { connectionTimeoutMillis: 5000, keepAlive: true, ...config };
  return createPostgresNotifications({ client: () => new pg.Client(clientConfig), schema, onError, origin });
}

/** The default report of a lost listening connection (its message only, never the connection string). */
const logLostListener = (error: Error) =>
  console.error(`[agentrun] postgres: notifications connection lost (${error.message}); reconnecting, workers poll meanwhile`);

/** The store's Kysely instance, and its `pg` pool when it knows it (for named statements, statements.ts). */
function connect(options: PostgresStoreOptions): { db: Db; owned: boolean; pool?: pg.Pool } {
  if ('db' in options) return { db: options.db, owned: false };
  if ('pool' in options)
    return { db: new Kysely({ dialect: new PostgresDialect({ pool: options.pool }) }), owned: false, pool: options.pool };
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 5000,
  });
  survivePoolErrors(pool, options.onError ?? logLostConnection);
  return { db: new Kysely({ dialect: new PostgresDialect({ pool }) }), owned: true, pool };
}
