import type { Notification, Store } from '@agentrun/core';
import type { AcceptDeliveryResult } from '@agentrun/core/store';
import { makeDelivery } from '@agentrun/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { openTestDatabase, poolWithIsolation, type TestDatabase } from './support/database.js';
import { waitUntil } from './support/wait.js';

// The ingress's accepts go in batches when many are in flight (batcher.ts,
// agentrun_accept_deliveries): what the conformance suite cannot show is the batches themselves, across two pools (two
// processes), and a batch that fails as a whole.
let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase('accept_batches');
});
afterAll(() => db?.close());

const NEEDS_SERVER = 'needs a PostgreSQL server: PGlite is one connection, so nothing runs concurrently';
const T0 = Date.UTC(2026, 0, 1);
const at = (ms: number) => new Date(T0 + ms).toISOString();

async function withTwoServers<T>(isolation: 'read committed' | 'repeatable read', use: (stores: Store[]) => Promise<T>): Promise<T> {
  const pools = [poolWithIsolation(db, isolation), poolWithIsolation(db, isolation)];
  const stores = pools.map((pool) => createPostgresStore({ pool, schema: db.schema, listen: false }));
  try {
    return await use(stores);
  } finally {
    await Promise.all(stores.map((s) => s.close()));
    await Promise.all(pools.map((p) => p.end()));
  }
}

describe('accepts awaiting evaluation, in batches', () => {
  for (const isolation of ['read committed', 'repeatable read'] as const) {
    it(`of 60 identical deliveries racing through two pools accepts exactly one (server default: ${isolation})`, async ({ skip }) => {
      if (!db.multiConnection) skip(NEEDS_SERVER);
      const seed = await db.freshStore();
      const attempts = Array.from({ length: 60 }, (_, i) => makeDelivery({ identity: 'sha256:same', receivedAt: at(i) }));
      const results = await withTwoServers(isolation, (stores) =>
        Promise.all(attempts.map((delivery, i) => (stores[i % 2] as Store).deliveries.accept({ delivery }))),
      );
      const winners = attempts.filter((_, i) => results[i]?.accepted);
      expect(winners).toHaveLength(1);
      const winner = winners[0] as (typeof attempts)[number];
      expect(results.filter((r) => !r.accepted)).toEqual(Array.from({ length: 59 }, () => ({ accepted: false, duplicateOf: winner.id })));
      const log = await seed.deliveries.list('team-1', 'w1', { limit: 100 });
      expect(log.filter((d) => d.status === 'Accepted').map((d) => d.id)).toEqual([winner.id]);
      expect(log.filter((d) => d.status === 'Duplicate')).toHaveLength(59);
      // The winner awaits evaluation, once.
      expect((await seed.deliveries.claimEvaluations({ limit: 100, leaseMs: 1000, now: at(100) })).map((d) => d.id)).toEqual([winner.id]);
    });
  }

  it('admits exactly the limit of each key across two pools, and nothing of the refused is written', async ({ skip }) => {
    if (!db.multiConnection) skip(NEEDS_SERVER);
    const seed = await db.freshStore();
    const admit = (webhook: string) => ({ key: `rate:${webhook}`, limit: 25, windowMs: 60_000, now: at(0) });
    const attempts = Array.from({ length: 120 }, (_, i) => makeDelivery({ webhookUid: `w${i % 3}` }));
    const results = await withTwoServers('read committed', (stores) =>
      Promise.all(
        attempts.map((delivery, i) => (stores[i % 2] as Store).deliveries.accept({ delivery, admit: admit(delivery.webhookUid) })),
      ),
    );
    for (const webhook of ['w0', 'w1', 'w2']) {
      const mine = results.filter((_, i) => attempts[i]?.webhookUid === webhook);
      expect(mine.filter((r) => r.accepted)).toHaveLength(25);
      expect(mine.filter((r) => 'rateLimited' in r)).toHaveLength(15);
      expect(await seed.deliveries.list('team-1', webhook, { limit: 100 })).toHaveLength(25);
    }
  });

  it('keeps each payload of a batch byte-exact, whatever its length (none, empty, NUL bytes, not UTF-8)', async ({ skip }) => {
    if (!db.multiConnection) skip(NEEDS_SERVER);
    const store = await db.freshStore();
    const payloadOf = (i: number) =>
      i % 7 === 3 ? null : new Uint8Array(Array.from({ length: (i * 37) % 300 }, (_, j) => (i * 31 + j * 7) % 256));
    const attempts = Array.from({ length: 40 }, (_, i) => {
      const payload = payloadOf(i);
      return makeDelivery({ identity: `sha256:bytes-${i}`, payload, size: payload?.byteLength ?? 0 });
    });
    expect(await Promise.all(attempts.map((delivery) => store.deliveries.accept({ delivery })))).toEqual(
      Array.from({ length: 40 }, () => ({ accepted: true })),
    );
    for (const [i, delivery] of attempts.entries()) {
      const got = await store.deliveries.get('team-1', 'w1', delivery.id);
      const want = payloadOf(i);
      expect(got?.payload === null ? null : [...(got?.payload ?? [])]).toEqual(want === null ? null : [...want]);
    }
  });

  it('answers each accept of a batch that fails as a whole alone: one error, every other answer right', async ({ skip }) => {
    if (!db.multiConnection) skip(NEEDS_SERVER);
    await db.freshStore();
    const pool = poolWithIsolation(db, 'read committed', 4);
    const store = createPostgresStore({ pool, schema: db.schema, listen: false });
    try {
      const attempts = Array.from({ length: 40 }, (_, i) => makeDelivery({ identity: `sha256:${i}`, receivedAt: at(i) }));
      // The last two share an id (the primary key): whichever goes second fails, and with it any
      // batch holding both. The rest are queued behind the first few, so they go in batches.
      const clash = makeDelivery({ id: (attempts[38] as (typeof attempts)[number]).id, identity: 'sha256:clash' });
      attempts[39] = clash;
      const settled = await Promise.allSettled(attempts.map((delivery) => store.deliveries.accept({ delivery })));
      const failed = settled.filter((s) => s.status === 'rejected');
      expect(failed).toHaveLength(1);
      expect(settled.filter((s) => s.status === 'fulfilled').map((s) => (s as PromiseFulfilledResult<AcceptDeliveryResult>).value)).toEqual(
        Array.from({ length: 39 }, () => ({ accepted: true })),
      );
      expect(await store.deliveries.list('team-1', 'w1', { limit: 100 })).toHaveLength(39);
    } finally {
      await store.close();
      await pool.end();
    }
  });

  it('commits concurrent accepts together: fewer `delivery.accepted` notifications than deliveries, at least one', async ({ skip }) => {
    if (!db.multiConnection) skip(NEEDS_SERVER);
    await db.freshStore();
    const pool = poolWithIsolation(db, 'read committed', 4);
    const store = createPostgresStore({ pool, schema: db.schema });
    const heard: string[] = [];
    const stop = await store.notifications?.listen((n: Notification) => {
      if (n.type === 'delivery.accepted') heard.push(n.deliveryId);
    });
    try {
      const burst = Array.from({ length: 50 }, (_, i) => makeDelivery({ identity: `sha256:${i}` }));
      expect(await Promise.all(burst.map((delivery) => store.deliveries.accept({ delivery })))).toEqual(
        Array.from({ length: 50 }, () => ({ accepted: true })),
      );
      // Alone (nothing in flight), then heard after every earlier commit: one connection hears them in order.
      const last = makeDelivery({ identity: 'sha256:last' });
      await store.deliveries.accept({ delivery: last });
      await waitUntil(
        () => heard.length,
        () => heard.includes(last.id),
        'the last delivery’s notification',
      );
      expect(heard.length).toBeGreaterThan(1);
      expect(heard.length).toBeLessThan(51);
      expect(heard.every((id) => id === last.id || burst.some((d) => d.id === id))).toBe(true);
    } finally {
      await stop?.();
      await store.close();
      await pool.end();
    }
  });
});
