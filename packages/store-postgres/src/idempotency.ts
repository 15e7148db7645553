import type { IdempotencyRecord, IdempotencyStore, IdempotencyWrite, Idempotent, RunRecord } from '@agentrun/core/store';
import { type RawBuilder, sql } from 'kysely';
import type { Db, Tx } from './db.js';
import { type IdempotencyRow, idempotencyFromRow, json } from './rows.js';
import type { Tables } from './tables.js';

/**
 * Run `work` in a transaction that holds the idempotency key of `write`; a replay or a miss (the
 * work throws) rolls it back. The run store's writes that carry a key go through it
 * (docs/stores.md, "The shape of the interface").
 */
export type Idempotently = <T>(
  write: IdempotencyWrite<RunRecord>,
  work: (tx: Tx) => Promise<{ result: T; run: RunRecord }>,
) => Promise<Idempotent<T>>;

/** Thrown inside a transaction to roll it back when the idempotency key is already used. */
class Replayed extends Error {
  constructor(readonly record: IdempotencyRecord) {
    super('replayed');
  }
}

/**
 * Idempotency records (table `idempotency_keys`). Every operation is one statement;
 * `idempotently` is for the run store, not part of the Store: it holds a key in the transaction
 * of the write it guards.
 */
export function createIdempotency(db: Db, t: Tables): { idempotency: IdempotencyStore; idempotently: Idempotently } {
  const rows = async <R>(query: RawBuilder<unknown>, executor: Db | Tx = db): Promise<R[]> => (await query.execute(executor)).rows as R[];

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

  const idempotently: Idempotently = async (write, work) => {
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

  return { idempotency, idempotently };
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
