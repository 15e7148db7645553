import type { DeliveryRecord, DeliveryStore, RateLimitStore, Store } from '@agentrun/core';
import { type RawBuilder, sql } from 'kysely';
import type { Db, Tx } from './db.js';
import { type DeliveryRow, deliveryFromRow } from './rows.js';
import { insertRunSql } from './run-sql.js';

/**
 * The delivery log and the rate-limit windows (tables of 0003_ingress). Reads are one statement;
 * `accept` and `admit` are one transaction each, see there.
 */
export function createIngress(db: Db): Pick<Store, 'deliveries' | 'rateLimits'> {
  const rows = async <R>(query: RawBuilder<unknown>, executor: Db | Tx = db): Promise<R[]> => (await query.execute(executor)).rows as R[];

  /** The INSERT of one log entry, as given (`status` and `payload` included). */
  const insertDelivery = (d: DeliveryRecord, suffix: RawBuilder<unknown> = sql``) =>
    sql`INSERT INTO deliveries (id, team_uid, factory_uid, webhook_uid, identity, size, received_at, status, payload)
      VALUES (${d.id}, ${d.teamUid}, ${d.factoryUid}, ${d.webhookUid}, ${d.identity}, ${d.size}, ${d.receivedAt}::timestamptz,
        ${d.status}, ${d.payload === null ? null : Buffer.from(d.payload)}::bytea)${suffix}`;

  const deliveries: DeliveryStore = {
    async accept({ delivery, runs }) {
      const accepted: DeliveryRecord = { ...delivery, status: 'Accepted' };
      // READ COMMITTED whatever the server's default. An insert that meets a concurrent accept of
      // the same identity waits for it on the unique index; once that commits, DO NOTHING applies
      // and the SELECT below (a new snapshot) sees the winner. Under REPEATABLE READ the conflict
      // with a row the snapshot cannot see would be a serialization failure instead.
      return db
        .transaction()
        .setIsolationLevel('read committed')
        .execute(async (tx) => {
          // Twice at most: the accepted original could be swept between the two statements, and
          // then this delivery is no longer a duplicate of anything.
          for (let attempt = 0; attempt < 2; attempt++) {
            const inserted = await rows(
              insertDelivery(accepted, sql` ON CONFLICT (webhook_uid, identity) WHERE status = 'Accepted' DO NOTHING RETURNING id`),
              tx,
            );
            if (inserted.length > 0) {
              // Idempotency records of the inputs do not apply: the delivery identity is the key.
              for (const run of runs) await insertRunSql({ run: run.run, attachments: run.attachments }).execute(tx);
              return { accepted: true as const };
            }
            const [original] = await rows<{ id: string }>(
              sql`SELECT id FROM deliveries WHERE webhook_uid = ${delivery.webhookUid} AND identity = ${delivery.identity} AND status = 'Accepted'`,
              tx,
            );
            if (original) {
              await insertDelivery({ ...delivery, status: 'Duplicate', payload: null }).execute(tx);
              return { accepted: false as const, duplicateOf: original.id };
            }
          }
          throw new Error(`delivery ${delivery.id}: its identity conflicts with an accepted delivery that cannot be found`);
        });
    },

    async log(entry) {
      await insertDelivery(entry).execute(db);
    },

    async list(teamUid, webhookUid, page) {
      // The row comparison reads deliveries_webhook_received from the cursor on, newest first.
      const after = page.after ? sql` AND (received_at, id) < (${page.after.receivedAt}::timestamptz, ${page.after.id})` : sql``;
      const found = await rows<DeliveryRow>(sql`
        SELECT * FROM deliveries WHERE webhook_uid = ${webhookUid} AND team_uid = ${teamUid}${after}
        ORDER BY received_at DESC, id DESC LIMIT ${page.limit}`);
      return found.map(deliveryFromRow);
    },

    async get(teamUid, webhookUid, id) {
      const [row] = await rows<DeliveryRow>(
        sql`SELECT * FROM deliveries WHERE id = ${id} AND team_uid = ${teamUid} AND webhook_uid = ${webhookUid}`,
      );
      return row ? deliveryFromRow(row) : undefined;
    },

    async sweep(olderThan, keepNewest) {
      // One statement: each entry's rank within its webhook, newest first (the order of
      // deliveries_webhook_received, so no sort), then every old entry past the newest N goes.
      // It reads the whole log, which retention itself keeps to about a week of entries.
      const result = await sql`
        WITH ranked AS (
          SELECT id, received_at, row_number() OVER (PARTITION BY webhook_uid ORDER BY received_at DESC, id DESC) AS rank
          FROM deliveries
        )
        DELETE FROM deliveries d USING ranked r
        WHERE d.id = r.id AND r.rank > ${keepNewest} AND r.received_at < ${olderThan}::timestamptz`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };

  /** The start of the window `(now - windowMs, now]`: events at or before it are out. */
  const windowStart = (now: string, windowMs: number) => new Date(Date.parse(now) - windowMs).toISOString();

  /** Count and oldest event of a key's window; when the oldest leaves it (0 for an empty window). */
  async function countWindow(executor: Db | Tx, key: string, windowMs: number, now: string) {
    const [row] = await rows<{ n: number; oldest: Date | string | null }>(
      sql`SELECT count(*)::int AS n, min(at) AS oldest FROM rate_limit_events
        WHERE key = ${key} AND at > ${windowStart(now, windowMs)}::timestamptz`,
      executor,
    );
    const oldest = row?.oldest == null ? undefined : new Date(row.oldest).getTime();
    const retryAfterMs = oldest === undefined ? 0 : Math.max(0, oldest + windowMs - Date.parse(now));
    return { count: row?.n ?? 0, retryAfterMs };
  }

  const rateLimits: RateLimitStore = {
    peek: ({ key, windowMs, now }) => countWindow(db, key, windowMs, now),

    async admit({ key, limit, windowMs, now }) {
      // READ COMMITTED whatever the server's default, as for a webhook create: each statement
      // after the lock then reads a snapshot taken once the lock was granted, and so counts the
      // events of the admits that held it before. (Under REPEATABLE READ the snapshot would be
      // taken by the lock statement itself, before the wait, and the count be stale.)
      return db
        .transaction()
        .setIsolationLevel('read committed')
        .execute(async (tx) => {
          // Admits of one key take turns from here to commit, across every process sharing the
          // database, so count-then-insert is exact. A hash collision only makes two keys wait
          // for each other.
          await sql`SELECT pg_advisory_xact_lock(hashtext('agentrun.rate:' || ${key}::text))`.execute(tx);
          // Prune as we go: a key then holds at most `limit` rows.
          await sql`DELETE FROM rate_limit_events WHERE key = ${key} AND at <= ${windowStart(now, windowMs)}::timestamptz`.execute(tx);
          const window = await countWindow(tx, key, windowMs, now);
          if (window.count >= limit) return { allowed: false as const, retryAfterMs: window.retryAfterMs };
          await sql`INSERT INTO rate_limit_events (key, at) VALUES (${key}, ${now}::timestamptz)`.execute(tx);
          return { allowed: true as const };
        });
    },
  };

  return { deliveries, rateLimits };
}
