import type { Store } from '@agentrun/core';
import { EVENT_PAYLOAD_FILE } from '@agentrun/core';
import type { DeliveryRecord } from '@agentrun/core/store';
import { makeDelivery, makeRun } from '@agentrun/core/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { openTestDatabase, poolWithIsolation, type TestDatabase } from './support/database.js';

// What the conformance suite cannot show: accept and admit exact across connections (as across
// server processes sharing one database), atomicity, the exact payload bytes, and the indexes.
let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase('ingress');
});
afterAll(() => db?.close());

const NEEDS_SERVER = 'needs a PostgreSQL server: PGlite is one connection, so nothing runs concurrently';

/** Two stores on two pools: as two server processes, each with its own connections. */
async function withTwoServers<T>(isolation: 'read committed' | 'repeatable read', use: (stores: Store[]) => Promise<T>): Promise<T> {
  const pools = [poolWithIsolation(db, isolation), poolWithIsolation(db, isolation)];
  const stores = pools.map((pool) => createPostgresStore({ pool, schema: db.schema }));
  try {
    return await use(stores);
  } finally {
    await Promise.all(stores.map((s) => s.close()));
    await Promise.all(pools.map((p) => p.end()));
  }
}

const T0 = Date.UTC(2026, 0, 1);
const at = (ms: number) => new Date(T0 + ms).toISOString();

describe('deliveries.accept across connections', () => {
  for (const isolation of ['read committed', 'repeatable read'] as const) {
    it(`of 50 identical deliveries racing through two pools accepts exactly one (server default: ${isolation})`, async ({ skip }) => {
      if (!db.multiConnection) skip(NEEDS_SERVER);
      const seed = await db.freshStore();
      const attempts = Array.from({ length: 50 }, (_, i) => ({
        delivery: makeDelivery({ identity: 'sha256:same', receivedAt: at(i) }),
        run: makeRun({ source: 'WEBHOOK' }),
      }));

      const results = await withTwoServers(isolation, (stores) =>
        Promise.all(
          attempts.map((a, i) =>
            (stores[i % 2] as Store).deliveries.accept({ delivery: a.delivery, runs: [{ run: a.run, attachments: [] }] }),
          ),
        ),
      );

      const winners = attempts.filter((_, i) => results[i]?.accepted);
      expect(winners).toHaveLength(1);
      const winner = winners[0] as (typeof attempts)[number];
      expect(results.filter((r) => !r.accepted)).toEqual(
        Array.from({ length: 49 }, () => ({ accepted: false, duplicateOf: winner.delivery.id })),
      );

      const log = await seed.deliveries.list('team-1', 'w1', { limit: 100 });
      expect(log.filter((d) => d.status === 'Accepted').map((d) => d.id)).toEqual([winner.delivery.id]);
      expect(log.filter((d) => d.status === 'Duplicate')).toHaveLength(49);
      expect(log.filter((d) => d.status === 'Duplicate').every((d) => d.payload === null)).toBe(true);
      // Runs of exactly one delivery: the winner's.
      const { rows } = await sql<{ id: string }>`SELECT id FROM ${db.table('runs')}`.execute(db.db);
      expect(rows.map((r) => r.id)).toEqual([winner.run.id]);
    });
  }
});

describe('deliveries.accept', () => {
  it('is atomic: a run that cannot be written leaves no accepted delivery, so a retry is accepted', async () => {
    const store = await db.freshStore();
    const existing = makeRun();
    await store.runs.create({ run: existing, attachments: [] });
    const delivery = makeDelivery({ identity: 'sha256:atomic' });
    const fresh = makeRun();
    // The second run's id is taken: its insert fails, and with it the whole accept.
    await expect(
      store.deliveries.accept({
        delivery,
        runs: [
          { run: fresh, attachments: [] },
          { run: existing, attachments: [] },
        ],
      }),
    ).rejects.toThrow();
    expect(await store.deliveries.get('team-1', 'w1', delivery.id)).toBeUndefined();
    expect(await store.runs.get(fresh.id)).toBeUndefined();

    expect(await store.deliveries.accept({ delivery, runs: [{ run: fresh, attachments: [] }] })).toEqual({ accepted: true });
    expect(await store.runs.get(fresh.id)).toBeDefined();
  });

  it('refuses an accepted entry without an identity, which the unique index could not deduplicate', async () => {
    const store = await db.freshStore();
    await expect(store.deliveries.accept({ delivery: makeDelivery({ identity: null }), runs: [] })).rejects.toThrow(
      /deliveries_accepted_identity_set/,
    );
  });

  it('keeps the payload byte-exact: the escape \\u0000, a NUL byte and invalid UTF-8', async () => {
    const store = await db.freshStore();
    // `{"a":"\u0000"}` as JSON text (the six bytes of the escape), then a raw NUL, then bytes that
    // are not UTF-8 (a lone continuation byte, 0xFF, a truncated sequence), then a newline.
    const json = new TextEncoder().encode('{"a":"\\u0000"}');
    const payload = new Uint8Array([...json, 0x00, 0x80, 0xff, 0xc3, 0x28, 0xe2, 0x82, 0x0a]);
    const delivery = makeDelivery({ identity: 'sha256:bytes', payload, size: payload.length });
    expect(await store.deliveries.accept({ delivery, runs: [] })).toEqual({ accepted: true });

    const got = (await store.deliveries.get('team-1', 'w1', delivery.id)) as DeliveryRecord;
    expect(got.payload).toBeInstanceOf(Uint8Array);
    expect([...(got.payload as Uint8Array)]).toEqual([...payload]);
    const [listed] = await store.deliveries.list('team-1', 'w1', { limit: 1 });
    expect([...(listed?.payload ?? [])]).toEqual([...payload]);
    // And the column holds exactly those bytes (bytea, not text or jsonb).
    const { rows } = await sql<{
      hex: string;
    }>`SELECT encode(payload, 'hex') AS hex FROM ${db.table('deliveries')} WHERE id = ${delivery.id}`.execute(db.db);
    expect(rows[0]?.hex).toBe(Buffer.from(payload).toString('hex'));
  });
});

describe('evaluation', () => {
  it('stores the payload once per delivery: every run attaches it by naming the delivery', async () => {
    const store = await db.freshStore();
    const delivery = makeDelivery({ identity: 'sha256:once' });
    expect(await store.deliveries.accept({ delivery })).toEqual({ accepted: true });
    const [claimed] = await store.deliveries.claimEvaluations({ limit: 10, leaseMs: 1000, now: at(1) });
    const runs = [1, 2, 3].map((n) => {
      const trigger = { factory_uid: 'factory-1', automation_id: `a${n}`, webhook_uid: 'w1', delivery_id: delivery.id };
      const run = makeRun({ source: 'WEBHOOK', trigger });
      const data = claimed?.payload as Uint8Array;
      return { run, attachments: [{ runId: run.id, fileName: EVENT_PAYLOAD_FILE, mimeType: 'application/json', data }] };
    });
    expect(await store.deliveries.completeEvaluations([{ deliveryId: delivery.id, runs }])).toEqual([delivery.id]);
    const { rows } = await sql<{ bytes: number; named: number }>`
      SELECT coalesce(sum(octet_length(data)), 0)::int AS bytes, count(*) FILTER (WHERE delivery_id = ${delivery.id})::int AS named
      FROM ${db.table('run_attachments')}`.execute(db.db);
    expect(rows[0]).toEqual({ bytes: 0, named: 3 });
    // Nothing is left to claim, whatever the time.
    expect(await store.deliveries.claimEvaluations({ limit: 10, leaseMs: 1000, now: at(10_000_000) })).toEqual([]);
  });
});

describe('deliveries.sweep', () => {
  it('keeps every webhook its newest N and everything younger than the cutoff, in one statement', async () => {
    const store = await db.freshStore();
    const entry = (webhookUid: string, ms: number) =>
      makeDelivery({ webhookUid, receivedAt: at(ms), status: 'Rejected (auth)', identity: null, payload: null });
    // w1: 60 old entries; w2: 10 old ones and 5 young ones; w3: ties on received_at broken by id.
    for (let i = 0; i < 60; i++) await store.deliveries.log(entry('w1', i));
    for (let i = 0; i < 10; i++) await store.deliveries.log(entry('w2', i));
    for (let i = 0; i < 5; i++) await store.deliveries.log(entry('w2', 10_000 + i));
    const ties = Array.from({ length: 4 }, () => entry('w3', 0));
    for (const t of ties) await store.deliveries.log(t);

    expect(await store.deliveries.sweep(at(1000), 3)).toBe(57 + 10 + 1);
    expect(await store.deliveries.list('team-1', 'w1', { limit: 100 })).toHaveLength(3);
    expect((await store.deliveries.list('team-1', 'w2', { limit: 100 })).map((d) => d.receivedAt)).toEqual(
      [4, 3, 2, 1, 0].map((i) => at(10_000 + i)),
    );
    const kept = (await store.deliveries.list('team-1', 'w3', { limit: 100 })).map((d) => d.id);
    expect(kept).toEqual(
      ties
        .map((t) => t.id)
        .sort()
        .reverse()
        .slice(0, 3),
    );
  });
});

describe('rateLimits.admit across connections', () => {
  for (const isolation of ['read committed', 'repeatable read'] as const) {
    it(`admits exactly 60 of 100 concurrent events through two pools (server default: ${isolation})`, async ({ skip }) => {
      if (!db.multiConnection) skip(NEEDS_SERVER);
      await db.freshStore();
      const key = `deliveries:w-${isolation.replace(' ', '-')}`;
      const results = await withTwoServers(isolation, (stores) =>
        Promise.all(
          Array.from({ length: 100 }, (_, i) =>
            (stores[i % 2] as Store).rateLimits.admit({ key, limit: 60, windowMs: 60_000, now: at(i) }),
          ),
        ),
      );
      expect(results.filter((r) => r.allowed)).toHaveLength(60);
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${db.table('rate_limit_events')} WHERE key = ${key}`.execute(
        db.db,
      );
      expect(rows[0]?.n).toBe(60);
    });
  }
});

describe('rateLimits', () => {
  it('prunes a key to its window as it admits, and peek writes nothing', async () => {
    const store = await db.freshStore();
    for (let i = 0; i < 5; i++) await store.rateLimits.admit({ key: 'k', limit: 5, windowMs: 1000, now: at(i) });
    const count = async () =>
      (await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${db.table('rate_limit_events')} WHERE key = 'k'`.execute(db.db)).rows[0]?.n;
    expect(await store.rateLimits.peek({ key: 'k', windowMs: 1000, now: at(5000) })).toEqual({ count: 0, retryAfterMs: 0 });
    expect(await count()).toBe(5);
    expect(await store.rateLimits.admit({ key: 'k', limit: 5, windowMs: 1000, now: at(5000) })).toEqual({ allowed: true });
    expect(await count()).toBe(1);
  });

  it("keeps each key's count equal to its events, and a count that drifted mends once its window is empty", async () => {
    const store = await db.freshStore();
    const admit = (key: string, ms: number, limit = 3) => store.rateLimits.admit({ key, limit, windowMs: 1000, now: at(ms) });
    for (let i = 0; i < 40; i++) await admit(i % 3 === 0 ? 'x' : 'y', i * 97);
    const counts = async () =>
      (
        await sql<{ key: string; n: number; events: number }>`SELECT c.key, c.n,
          (SELECT count(*)::int FROM ${db.table('rate_limit_events')} e WHERE e.key = c.key) AS events
          FROM ${db.table('rate_limit_counts')} c ORDER BY c.key`.execute(db.db)
      ).rows;
    const kept = await counts();
    expect(kept.map((c) => c.key)).toEqual(['x', 'y']);
    for (const c of kept) expect(c.n).toBe(c.events);
    // By hand, as an operator clearing a limit might: the count says 3 where the window is empty.
    await sql`DELETE FROM ${db.table('rate_limit_events')} WHERE key = 'x'`.execute(db.db);
    await sql`UPDATE ${db.table('rate_limit_counts')} SET n = 3 WHERE key = 'x'`.execute(db.db);
    expect(await admit('x', 40 * 97)).toEqual({ allowed: true });
    expect((await counts()).find((c) => c.key === 'x')).toEqual({ key: 'x', n: 1, events: 1 });
  });
});

describe('indexes', () => {
  /**
   * The plan of `query` with sequential scans and sorts priced out: whether an index can answer it
   * at all, in its order, whatever rows and statistics the tests before left in the tables.
   */
  async function plan(query: ReturnType<typeof sql>): Promise<string> {
    return db.db.transaction().execute(async (tx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(tx);
      await sql`SET LOCAL enable_sort = off`.execute(tx);
      const explained = await sql<{ 'QUERY PLAN': string }>`EXPLAIN ${query}`.execute(tx);
      return explained.rows.map((r) => r['QUERY PLAN']).join('\n');
    });
  }

  it('serve a log page from the cursor on, newest first, without a sort', async () => {
    const text = await plan(sql`SELECT * FROM ${db.table('deliveries')} WHERE webhook_uid = 'w1' AND team_uid = 'team-1'
      AND (received_at, id) < ('2026-01-01T00:00:00.000Z'::timestamptz, 'x') ORDER BY received_at DESC, id DESC LIMIT 20`);
    expect(text).toContain('deliveries_webhook_received');
    expect(text).not.toContain('Sort');
  });

  it('serve the duplicate check by the unique partial index', async () => {
    const text = await plan(
      sql`SELECT id FROM ${db.table('deliveries')} WHERE webhook_uid = 'w1' AND identity = 'h' AND status = 'Accepted'`,
    );
    expect(text).toContain('deliveries_accepted_identity');
  });

  it('serve a rate-limit window', async () => {
    const text = await plan(
      sql`SELECT count(*), min(at) FROM ${db.table('rate_limit_events')} WHERE key = 'k' AND at > '2026-01-01T00:00:00.000Z'::timestamptz`,
    );
    expect(text).toContain('rate_limit_events_key_at');
  });
});
