import type { Store } from '@agentrun/core';
import { makeAutomation, makeFactory, makeSecret, makeWebhook } from '@agentrun/core/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { openTestDatabase, poolWithIsolation, type TestDatabase } from './support/database.js';

// What the conformance suite cannot show: the limit held across connections and processes, what
// the secrets table holds, and the constraints and indexes of the control-plane tables.
let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase('control_plane');
});
afterAll(() => db?.close());

const NEEDS_SERVER = 'needs a PostgreSQL server: PGlite is one connection, so nothing runs concurrently';

describe('webhooks.create across connections', () => {
  for (const isolation of ['read committed', 'repeatable read'] as const) {
    it(`creates exactly up to the limit from 20 concurrent creates on two pools (server default: ${isolation})`, async ({ skip }) => {
      if (!db.multiConnection) skip(NEEDS_SERVER);
      const seed = await db.freshStore();
      const factoryUid = 'factory-race';
      for (let i = 0; i < 5; i++) {
        expect(await seed.webhooks.create({ webhook: makeWebhook({ factoryUid }), maxPerFactory: 20 })).toEqual({ created: true });
      }

      // Two pools: as two server processes, each with its own connections.
      const pools = [poolWithIsolation(db, isolation), poolWithIsolation(db, isolation)];
      const stores = pools.map((pool) => createPostgresStore({ pool, schema: db.schema }));
      try {
        const attempts = Array.from({ length: 20 }, (_, i) => {
          const secret = makeSecret({ name: `race-${i}` });
          return { webhook: makeWebhook({ factoryUid, secretName: secret.name }), secret };
        });
        const results = await Promise.all(attempts.map((a, i) => (stores[i % 2] as Store).webhooks.create({ ...a, maxPerFactory: 20 })));

        expect(results.filter((r) => r.created)).toHaveLength(15);
        expect(results.filter((r) => !r.created)).toEqual(Array.from({ length: 5 }, () => ({ created: false, reason: 'limit' })));
        expect(await seed.webhooks.list('team-1', factoryUid)).toHaveLength(20);
        // Nothing half-created: exactly the secrets of the created webhooks exist.
        const created = attempts.filter((_, i) => results[i]?.created).map((a) => a.secret.name);
        const secrets = (await seed.secrets.list('team-1')).map((s) => s.name);
        expect(secrets.sort()).toEqual(created.sort());
      } finally {
        await Promise.all(stores.map((s) => s.close()));
        await Promise.all(pools.map((p) => p.end()));
      }
    });
  }
});

describe('team_secrets', () => {
  it('has no column but the ciphertext for a value', async () => {
    const { rows } = await sql<{ column_name: string }>`
      SELECT column_name FROM information_schema.columns
      WHERE table_schema = ${db.schema} AND table_name = 'team_secrets' ORDER BY ordinal_position`.execute(db.db);
    expect(rows.map((r) => r.column_name)).toEqual(['team_uid', 'name', 'ciphertext', 'created_at', 'updated_at']);
  });

  it('stores exactly the ciphertext it was given, by put and by webhook create', async () => {
    const store = await db.freshStore();
    const put = makeSecret({ name: 'put', ciphertext: 'v1.AAEC.abc/+=\u00e9' });
    const replaced = makeSecret({ name: 'put', ciphertext: 'v1.replaced' });
    const generated = makeSecret({ name: 'generated', ciphertext: 'v1.generated' });
    await store.secrets.put(put);
    await store.secrets.put(replaced);
    await store.webhooks.create({ webhook: makeWebhook({ secretName: 'generated' }), secret: generated, maxPerFactory: 20 });
    const { rows } = await sql<{
      name: string;
      ciphertext: string;
    }>`SELECT name, ciphertext FROM ${db.table('team_secrets')} ORDER BY name`.execute(db.db);
    expect(rows).toEqual([
      { name: 'generated', ciphertext: generated.ciphertext },
      { name: 'put', ciphertext: replaced.ciphertext },
    ]);
  });
});

describe('factories', () => {
  it('refuse a duplicate uid', async () => {
    const store = await db.freshStore();
    const f = makeFactory();
    await store.factories.create(f);
    await expect(store.factories.create({ ...f, name: 'again' })).rejects.toThrow(`factory ${f.uid} already exists`);
  });
});

describe('webhooks', () => {
  it('refuse an unknown auth mode', async () => {
    const store = await db.freshStore();
    const webhook = { ...makeWebhook(), authMode: 'basic' } as unknown as ReturnType<typeof makeWebhook>;
    await expect(store.webhooks.create({ webhook, maxPerFactory: 20 })).rejects.toThrow(/webhooks_auth_mode_check/);
  });
});

describe('automations by webhook (the ingress lookup)', () => {
  const selecting = (uid: string) => sql`triggers @> ${JSON.stringify([{ provider: 'webhook', filter: { webhook_ids: [uid] } }])}::jsonb`;

  it('finds the enabled automations that select a webhook, through the GIN index', async () => {
    const store = await db.freshStore();
    const trigger = (...ids: string[]) => [{ provider: 'webhook' as const, event: 'received' as const, filter: { webhook_ids: ids } }];
    const both = makeAutomation({ triggers: trigger('w1', 'w2') });
    const second = makeAutomation({ triggers: [...trigger('w3'), ...trigger('w1')] });
    const disabled = makeAutomation({ enabled: false, triggers: trigger('w1') });
    const other = makeAutomation({ triggers: trigger('w2') });
    for (const a of [both, second, disabled, other]) await store.automations.create(a);

    const { rows } = await sql<{
      id: string;
    }>`SELECT id FROM ${db.table('automations')} WHERE enabled AND ${selecting('w1')} ORDER BY id`.execute(db.db);
    expect(rows.map((r) => r.id)).toEqual([both.id, second.id].sort());

    // With sequential scans priced out, the plan shows the index can answer the query at all.
    const plan = await db.db.transaction().execute(async (tx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(tx);
      const explained = await sql<{
        'QUERY PLAN': string;
      }>`EXPLAIN SELECT id FROM ${db.table('automations')} WHERE enabled AND ${selecting('w1')}`.execute(tx);
      return explained.rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('automations_triggers');
  });
});
