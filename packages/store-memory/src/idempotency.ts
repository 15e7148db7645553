import type { IdempotencyRecord, IdempotencyStore, IdempotencyWrite, Idempotent } from '@agentrun/core/store';
import { copy as clone } from './copy.js';

/**
 * Run `perform` unless the key of `write` was used. When `perform` yields a value to respond with
 * (a run it wrote), the response is recorded in the same step; a write that did not apply records
 * none. The run store wraps its writes in it (docs/stores.md, "The shape of the interface").
 */
export type WithIdempotency = <R, T>(
  write: IdempotencyWrite<R> | undefined,
  perform: () => T,
  written: (result: T) => R | undefined,
) => Idempotent<T>;

/**
 * Idempotency records in memory, by (scope, key); each operation is synchronous, so atomic.
 * `withIdempotency` is for the memory run store, not part of the Store.
 */
export function createMemoryIdempotency(): { idempotency: IdempotencyStore; withIdempotency: WithIdempotency } {
  const records = new Map<string, IdempotencyRecord>();

  const idemKey = (scope: string, key: string) => `${scope}\u0000${key}`;

  const liveRecord = (scope: string, key: string, now: string) => {
    const record = records.get(idemKey(scope, key));
    return record && record.expiresAt > now ? record : undefined;
  };

  const withIdempotency: WithIdempotency = (write, perform, written) => {
    if (write) {
      const existing = liveRecord(write.scope, write.key, write.now);
      if (existing) return { replayed: clone(existing) };
    }
    const result = perform();
    const subject = written(result);
    if (write && subject !== undefined) {
      const { status, body } = write.respond(subject);
      records.set(idemKey(write.scope, write.key), {
        scope: write.scope,
        key: write.key,
        fingerprint: write.fingerprint,
        status,
        body: clone(body),
        createdAt: write.now,
        expiresAt: write.expiresAt,
      });
    }
    return { result };
  };

  const idempotency: IdempotencyStore = {
    async get(scope, key, now) {
      const record = liveRecord(scope, key, now);
      return record && record.status !== 0 ? clone(record) : undefined;
    },
    async reserve(r) {
      const existing = liveRecord(r.scope, r.key, r.now);
      if (existing) return { reserved: false, existing: clone(existing) };
      records.set(idemKey(r.scope, r.key), {
        scope: r.scope,
        key: r.key,
        fingerprint: r.fingerprint,
        status: 0,
        body: null,
        createdAt: r.now,
        expiresAt: r.expiresAt,
      });
      return { reserved: true };
    },
    async complete(scope, key, response) {
      const record = records.get(idemKey(scope, key));
      if (record && record.status === 0) {
        records.set(idemKey(scope, key), {
          ...record,
          status: response.status,
          body: clone(response.body),
          expiresAt: response.expiresAt,
        });
      }
    },
    async release(scope, key) {
      if (records.get(idemKey(scope, key))?.status === 0) records.delete(idemKey(scope, key));
    },
    async purgeExpired(now) {
      let removed = 0;
      for (const [k, record] of records) {
        if (record.expiresAt <= now) {
          records.delete(k);
          removed++;
        }
      }
      return removed;
    },
  };

  return { idempotency, withIdempotency };
}
