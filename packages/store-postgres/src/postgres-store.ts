import type { Store } from '@agentrun/core';
import type {
  ApiKeyStore,
  IdempotencyStore,
  IdempotencyWrite,
  Idempotent,
  RunPatch,
  RunRecord,
  RunStore,
  TransitionOutcome,
  TransitionRunInput,
} from '@agentrun/core/store';
import { LEASED_STATES } from '@agentrun/core/store';
import { Kysely, PostgresDialect, type RawBuilder, sql } from 'kysely';
import pg from 'pg';
import { createControlPlane } from './control-plane.js';
import type { Db, Tx } from './db.js';
import { createIngress } from './ingress.js';
import { type MigrateResult, migrate } from './migrate.js';
import { createPostgresNotifications } from './notifications.js';
import {
  type ApiKeyRow,
  apiKeyFromRow,
  type FollowupRow,
  followupFromRow,
  type IdempotencyRow,
  idempotencyFromRow,
  json,
  type RunRow,
  runFromRow,
} from './rows.js';
import { listRunsSql } from './runs-list-sql.js';
import { insertRunSql } from './runs-sql.js';
import { schemaOption } from './schema-name.js';
import { type Tables, tablesIn } from './tables.js';
import { isUnavailableError } from './unavailable.js';

/**
 * Where the store's connections come from, in the style of Kysely's dialects: hand over a
 * `Kysely` instance you own, a `pg` pool you own, or a connection string (the store then owns
 * the pool and `close()` ends it); and the schema its tables live in.
 */
export type PostgresStoreOptions = PostgresSchemaOption &
  PostgresListenOption &
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

const LEASED = [...LEASED_STATES];

/** Thrown inside a transaction to roll it back when a compare-and-set did not apply. */
class NotApplied extends Error {
  constructor(readonly current: RunRecord | undefined) {
    super('not applied');
  }
}

/** Thrown inside a transaction to roll it back when the idempotency key is already used. */
class Replayed extends Error {
  constructor(readonly record: ReturnType<typeof idempotencyFromRow>) {
    super('replayed');
  }
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
  const { db, owned } = connect(options);
  const notifications = listenerOf(options, schema);

  const rows = async <R>(query: RawBuilder<unknown>, executor: Db | Tx = db): Promise<R[]> => (await query.execute(executor)).rows as R[];

  const getRun = async (runId: string, teamUid?: string, executor: Db | Tx = db) => {
    const team = teamUid === undefined ? sql`` : sql` AND team_uid = ${teamUid}`;
    const [row] = await rows<RunRow>(sql`SELECT * FROM ${t.runs} WHERE id = ${runId}${team}`, executor);
    return row ? runFromRow(row) : undefined;
  };

  /**
   * Reserve (scope, key) for this transaction: insert it, or take over a record that expired.
   * Another live record means the key was used: roll back and replay it. A concurrent writer of
   * the same key waits on the row until this transaction ends, then sees the outcome.
   */
  async function reserveKey<R>(tx: Tx, write: IdempotencyWrite<R>): Promise<void> {
    const reserved = await rows(reserveSql(t, write), tx);
    if (reserved.length > 0) return;
    const [existing] = await rows<IdempotencyRow>(
      sql`SELECT * FROM ${t.idempotency_keys} WHERE scope = ${write.scope} AND key = ${write.key}`,
      tx,
    );
    throw new Replayed(idempotencyFromRow(existing as IdempotencyRow));
  }

  async function recordResponse<R>(tx: Tx, write: IdempotencyWrite<R>, result: R): Promise<void> {
    const { status, body } = write.respond(result);
    await sql`UPDATE ${t.idempotency_keys} SET status = ${status}, body = ${json(body)}::jsonb WHERE scope = ${write.scope} AND key = ${write.key}`.execute(
      tx,
    );
  }

  /** Run `work` in a transaction that holds the idempotency key; a replay or a miss rolls it back. */
  async function idempotently<T>(
    write: IdempotencyWrite<RunRecord>,
    work: (tx: Tx) => Promise<{ result: T; run: RunRecord }>,
  ): Promise<Idempotent<T>> {
    try {
      return await db.transaction().execute(async (tx) => {
        await reserveKey(tx, write);
        const { result, run } = await work(tx);
        await recordResponse(tx, write, run);
        return { result };
      });
    } catch (error) {
      if (error instanceof Replayed) return { replayed: error.record };
      throw error;
    }
  }

  /** The UPDATE of a compare-and-set transition; RETURNING the run when it applied. */
  function transitionSql(input: TransitionRunInput): RawBuilder<unknown> {
    const sets = patchAssignments(input.patch);
    sets.push(sql`updated_at = GREATEST(updated_at, ${input.now}::timestamptz)`);
    const where = [sql`id = ${input.runId}`, sql`state = ${input.expect.state}`];
    if (input.teamUid !== undefined) where.push(sql`team_uid = ${input.teamUid}`);
    if (input.expect.workerId !== undefined) where.push(sql`lease_worker_id = ${input.expect.workerId}`);
    if (input.expect.leaseExpiredBy !== undefined) where.push(sql`lease_expires_at <= ${input.expect.leaseExpiredBy}::timestamptz`);
    const update = sql`UPDATE ${t.runs} SET ${sql.join(sets)} WHERE ${sql.join(where, sql` AND `)} RETURNING *`;
    const f = input.followup;
    if (!f) return update;
    // The follow-up is written only if the update applied: it selects from the updated row.
    return sql`WITH updated AS (${update}),
      followup AS (
        INSERT INTO ${t.run_followups} (id, run_id, message, created_at, creator_uid)
        SELECT ${f.id}, id, ${f.message}, ${f.createdAt}::timestamptz, ${f.creatorUid} FROM updated
      )
      SELECT * FROM updated`;
  }

  const runs: RunStore = {
    async create(input) {
      if (input.idempotency) {
        return idempotently(input.idempotency, async (tx) => {
          const [row] = await rows<RunRow>(insertRunSql(t, input), tx);
          return { result: runFromRow(row as RunRow), run: input.run };
        });
      }
      const [row] = await rows<RunRow>(insertRunSql(t, input));
      return { result: runFromRow(row as RunRow) };
    },

    get: (runId, teamUid) => getRun(runId, teamUid),

    async list(query) {
      return (await rows<RunRow>(listRunsSql(t, query))).map(runFromRow);
    },

    async transition(input): Promise<Idempotent<TransitionOutcome>> {
      if (!input.idempotency) {
        const [row] = await rows<RunRow>(transitionSql(input));
        if (row) return { result: { applied: true, run: runFromRow(row) } };
        return { result: { applied: false, run: await getRun(input.runId, input.teamUid) } };
      }
      try {
        return await idempotently(input.idempotency, async (tx) => {
          const [row] = await rows<RunRow>(transitionSql(input), tx);
          if (!row) throw new NotApplied(undefined);
          const run = runFromRow(row);
          return { result: { applied: true, run }, run };
        });
      } catch (error) {
        // Rolled back, key released: report the run as it is now.
        if (error instanceof NotApplied) return { result: { applied: false, run: await getRun(input.runId, input.teamUid) } };
        throw error;
      }
    },

    async claimNext(input) {
      // SKIP LOCKED: concurrent claimers each lock a different queued run instead of waiting.
      const [row] = await rows<RunRow>(sql`
        UPDATE ${t.runs} SET state = 'CLAIMED', attempts = attempts + 1,
          lease_worker_id = ${input.workerId}, lease_expires_at = ${input.leaseExpiresAt}::timestamptz,
          updated_at = GREATEST(updated_at, ${input.now}::timestamptz)
        WHERE id = (
          SELECT id FROM ${t.runs} WHERE state = 'QUEUED' ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED
        ) AND state = 'QUEUED'
        RETURNING *`);
      return row ? runFromRow(row) : undefined;
    },

    async renewLease(input) {
      const [row] = await rows<RunRow>(sql`
        WITH renewed AS (
          UPDATE ${t.runs} SET lease_expires_at = ${input.leaseExpiresAt}::timestamptz
          WHERE id = ${input.runId} AND lease_worker_id = ${input.workerId} AND state IN (${sql.join(LEASED)})
          RETURNING *
        )
        SELECT * FROM renewed
        UNION ALL
        SELECT * FROM ${t.runs} WHERE id = ${input.runId} AND NOT EXISTS (SELECT 1 FROM renewed)`);
      return row ? runFromRow(row) : undefined;
    },

    async listExpiredLeases(now, limit) {
      const found = await rows<RunRow>(sql`
        SELECT * FROM ${t.runs}
        WHERE lease_worker_id IS NOT NULL AND lease_expires_at <= ${now}::timestamptz AND state IN (${sql.join(LEASED)})
        ORDER BY lease_expires_at, id LIMIT ${limit}`);
      return found.map(runFromRow);
    },

    async listFollowups(runId) {
      return (await rows<FollowupRow>(sql`SELECT * FROM ${t.run_followups} WHERE run_id = ${runId} ORDER BY seq`)).map(followupFromRow);
    },

    async getAttachment(teamUid, runId, fileName) {
      const [row] = await rows<{ run_id: string; file_name: string; mime_type: string; data: Buffer }>(sql`
        SELECT a.* FROM ${t.run_attachments} a JOIN ${t.runs} r ON r.id = a.run_id
        WHERE a.run_id = ${runId} AND a.file_name = ${fileName} AND r.team_uid = ${teamUid}`);
      if (!row) return undefined;
      return { runId: row.run_id, fileName: row.file_name, mimeType: row.mime_type, data: new Uint8Array(row.data) };
    },
  };

  const idempotency: IdempotencyStore = {
    async get(scope, key, now) {
      const [row] = await rows<IdempotencyRow>(sql`
        SELECT * FROM ${t.idempotency_keys} WHERE scope = ${scope} AND key = ${key} AND expires_at > ${now}::timestamptz AND status <> 0`);
      return row ? idempotencyFromRow(row) : undefined;
    },
    async reserve(r) {
      // One statement: insert, or take over an expired record; a live one is left as it is.
      const reserved = await rows(reserveSql(t, r));
      if (reserved.length > 0) return { reserved: true };
      const [existing] = await rows<IdempotencyRow>(sql`SELECT * FROM ${t.idempotency_keys} WHERE scope = ${r.scope} AND key = ${r.key}`);
      // Gone between the two statements (released or purged): the caller may simply try again.
      if (!existing) return this.reserve(r);
      return { reserved: false, existing: idempotencyFromRow(existing) };
    },
    async complete(scope, key, response) {
      await sql`UPDATE ${t.idempotency_keys} SET status = ${response.status}, body = ${json(response.body)}::jsonb, expires_at = ${response.expiresAt}::timestamptz
                WHERE scope = ${scope} AND key = ${key} AND status = 0`.execute(db);
    },
    async release(scope, key) {
      await sql`DELETE FROM ${t.idempotency_keys} WHERE scope = ${scope} AND key = ${key} AND status = 0`.execute(db);
    },
    async purgeExpired(now) {
      const result = await sql`DELETE FROM ${t.idempotency_keys} WHERE expires_at <= ${now}::timestamptz`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };

  const apiKeys: ApiKeyStore = {
    async create(record) {
      await sql`INSERT INTO ${t.api_keys} (hash, prefix, principal, created_at)
        VALUES (${record.hash}, ${record.prefix}, ${json(record.principal)}::jsonb, ${record.createdAt}::timestamptz)`.execute(db);
    },
    async findByHash(hash) {
      const [row] = await rows<ApiKeyRow>(sql`SELECT * FROM ${t.api_keys} WHERE hash = ${hash}`);
      return row ? apiKeyFromRow(row) : undefined;
    },
  };

  return {
    runs,
    idempotency,
    apiKeys,
    ...createControlPlane(db, t),
    ...createIngress(db, t),
    db,
    schema,
    migrate: () => migrate(db, { schema }),
    isUnavailable: isUnavailableError,
    ...(notifications ? { notifications } : {}),
    async close() {
      await notifications?.close();
      if (owned) await db.destroy();
    },
  };
}

/** SET assignments for the fields a patch gives (`undefined` leaves a field, `null` clears it). */
function patchAssignments(patch: RunPatch): RawBuilder<unknown>[] {
  const sets: RawBuilder<unknown>[] = [];
  if (patch.state !== undefined) sets.push(sql`state = ${patch.state}`);
  if (patch.statusMessage !== undefined) sets.push(sql`status_message = ${json(patch.statusMessage)}::jsonb`);
  if (patch.startedAt !== undefined) sets.push(sql`started_at = ${patch.startedAt}::timestamptz`);
  if (patch.sessionId !== undefined) sets.push(sql`session_id = ${patch.sessionId}`);
  if (patch.sessionLink !== undefined) sets.push(sql`session_link = ${patch.sessionLink}`);
  if (patch.attempts !== undefined) sets.push(sql`attempts = ${patch.attempts}`);
  if (patch.lease !== undefined) {
    sets.push(sql`lease_worker_id = ${patch.lease?.workerId ?? null}`);
    sets.push(sql`lease_expires_at = ${patch.lease?.expiresAt ?? null}::timestamptz`);
  }
  return sets;
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
 * Hold (scope, key) with status 0: insert it, or take over a record that expired. RETURNING a row
 * means this statement holds the key; none means a live record exists.
 */
function reserveSql(
  t: Tables,
  r: { scope: string; key: string; fingerprint: string; now: string; expiresAt: string },
): RawBuilder<unknown> {
  return sql`INSERT INTO ${t.idempotency_keys} (scope, key, fingerprint, status, body, created_at, expires_at)
    VALUES (${r.scope}, ${r.key}, ${r.fingerprint}, 0, NULL, ${r.now}::timestamptz, ${r.expiresAt}::timestamptz)
    ON CONFLICT (scope, key) DO UPDATE
      SET fingerprint = EXCLUDED.fingerprint, status = 0, body = NULL, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
      WHERE idempotency_keys.expires_at <= ${r.now}::timestamptz
    RETURNING key`;
}

/** The notifications of the store, on a connection of their own, when it knows how to make one. */
function listenerOf(options: PostgresStoreOptions, schema: string) {
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
  return createPostgresNotifications({ client: () => new pg.Client(clientConfig), schema, onError });
}

/** The default report of a lost listening connection (its message only, never the connection string). */
const logLostListener = (error: Error) =>
  console.error(`[agentrun] postgres: notifications connection lost (${error.message}); reconnecting, workers poll meanwhile`);

function connect(options: PostgresStoreOptions): { db: Db; owned: boolean } {
  if ('db' in options) return { db: options.db, owned: false };
  if ('pool' in options) return { db: new Kysely({ dialect: new PostgresDialect({ pool: options.pool }) }), owned: false };
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 5000,
  });
  survivePoolErrors(pool, options.onError ?? logLostConnection);
  return { db: new Kysely({ dialect: new PostgresDialect({ pool }) }), owned: true };
}
