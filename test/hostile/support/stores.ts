import type { Store } from '@agentrun/core';
import { createMemoryStore } from '@agentrun/store-memory';
import { openTestDatabase, type TestDatabase } from '../../../packages/store-postgres/test/support/database.js';

/**
 * The stores the hostile-agent suite runs every case on, since each keeps text differently: the memory store
 * and Postgres (its own schema per file, dropped after; PGlite outside CI when no server answers,
 * as the store's own tests do). Use it as
 *
 *   describe.each(HOSTILE_STORES)('… on %s', (kind) => {
 *     const stores = storeFor(kind); // beforeAll/afterAll registered here
 *     it('…', async () => { const store = await stores.fresh(); … });
 *   });
 */
export const HOSTILE_STORES = ['memory', 'postgres'] as const;
export type HostileStoreKind = (typeof HOSTILE_STORES)[number];

export interface StoreSource {
  /** An empty store of this kind. */
  fresh(): Promise<Store>;
  /** Postgres only: the connection string and schema, for a server in a child process. */
  database(): TestDatabase | undefined;
}

import { afterAll, beforeAll } from 'vitest';

/** A store source for `kind`, opened before the describe block's tests and closed after them. */
export function storeFor(kind: HostileStoreKind, label = 'hostile'): StoreSource {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    if (kind === 'postgres') database = await openTestDatabase(label);
  }, 30_000);
  afterAll(async () => {
    await database?.close();
  });
  return {
    async fresh() {
      if (kind === 'memory') return createMemoryStore();
      if (!database) throw new Error('the Postgres test database is not open (storeFor must be called inside a describe block)');
      return database.freshStore();
    },
    database: () => database,
  };
}
