import type { Notification } from '@agentrun/core';
import { makeRun } from '@agentrun/core/testing';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresStore, type PostgresStore } from '../src/index.js';
import { parseNotifications } from '../src/notifications.js';
import { notifyChannel } from '../src/notify-channel.js';
import { openTestDatabase } from './support/database.js';

// The store's own writes of runs notify after their commit (deferred-notifications.ts; the
// triggers of migrations/baseline/notifications.ts; docs/production.md, "Notifications after the commit"):
// what another process hears, what the store's own listeners hear, and that every other writer
// still notifies from the triggers. Needs a server (several connections): skipped on PGlite.
const db = await openTestDatabase('notifications_deferred');
const pools: pg.Pool[] = [];
const stores: PostgresStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
  for (const pool of pools) await pool.end();
  await db.close();
});

/** A store on a pool of its own (another "process"), listening unless told not to. */
const storeOnPool = (max = 2, listen = true) => {
  const pool = (db.newPool as (max: number) => pg.Pool)(max);
  pools.push(pool);
  const store = createPostgresStore({ pool, schema: db.schema, ...(listen ? {} : { listen: false as const }) });
  stores.push(store);
  return { store, pool };
};

const hear = async (store: PostgresStore) => {
  const heard: Notification[] = [];
  await store.notifications?.listen((n) => heard.push(n));
  return heard;
};

/** Every payload on the schema's channel, as a raw listener sees it. */
const payloadsOnTheChannel = async () => {
  const client = new pg.Client({ connectionString: db.url as string });
  await client.connect();
  const payloads: string[] = [];
  client.on('notification', (m) => payloads.push(m.payload ?? ''));
  await client.query(`LISTEN "${notifyChannel(db.schema)}"`);
  return { payloads, end: () => client.end() };
};

const claimInput = (workerId: string) => {
  const now = new Date().toISOString();
  return { workerId, now, leaseExpiresAt: new Date(Date.now() + 60_000).toISOString() };
};

describe.skipIf(!db.multiConnection)('notifications after the commit', () => {
  it("reach another store's listener: each run's create, claim and outcome, in order", async () => {
    await db.freshStore();
    const { store: writer } = storeOnPool(4, false);
    const { store: other } = storeOnPool();
    const heard = await hear(other);
    const sent = await payloadsOnTheChannel();
    // Two of each write at once: the first, alone, notifies in its commit; the second defers.
    const runs = [makeRun(), makeRun()];
    await Promise.all(runs.map((run) => writer.runs.create({ run, attachments: [] })));
    const claimed = await Promise.all(runs.map(() => writer.runs.claimNext(claimInput('w1'))));
    expect(new Set(claimed.map((r) => r?.id))).toEqual(new Set(runs.map((r) => r.id)));
    const outcomes = await Promise.all(
      runs.map((run) =>
        writer.runs.transition({
          runId: run.id,
          expect: { state: 'CLAIMED', workerId: 'w1' },
          patch: { state: 'SUCCEEDED', lease: null },
          now: new Date().toISOString(),
          transcript: { state: true },
        }),
      ),
    );
    expect(outcomes.map((o) => o.result?.applied)).toEqual([true, true]);
    await waitFor(() => heard.length >= 10);
    for (const run of runs)
      expect(heard.filter((n) => 'runId' in n && n.runId === run.id)).toEqual([
        { type: 'run.queued', runId: run.id },
        { type: 'run.event', runId: run.id, eventId: 1 },
        { type: 'run.changed', runId: run.id, state: 'CLAIMED' },
        { type: 'run.event', runId: run.id, eventId: 2 },
        { type: 'run.changed', runId: run.id, state: 'SUCCEEDED' },
      ]);
    expect(heard).toHaveLength(10);
    // Some came in the writer's sends after its commits, some from the triggers.
    expect(sent.payloads.some((p) => p.startsWith('{"from":'))).toBe(true);
    expect(sent.payloads.some((p) => !p.startsWith('{"from":'))).toBe(true);
    await sent.end();
  });

  it('are heard once by the writing store: a deferred write at its commit, its echo dropped', async () => {
    await db.freshStore();
    const { store } = storeOnPool();
    const heard = await hear(store);
    const [alone, deferred] = [makeRun(), makeRun()];
    await Promise.all([store.runs.create({ run: alone, attachments: [] }), store.runs.create({ run: deferred, attachments: [] })]);
    // The deferred one is heard as its create resolves, before its send could come back.
    expect(heard).toContainEqual({ type: 'run.queued', runId: deferred.id });
    // A write of another writer on the channel marks the end: everything sent before it is in.
    const end = makeRun();
    await sql`INSERT INTO ${db.table('runs')} (id, team_uid, title, prompt, state, created_at, updated_at, source, creator, config, conversation_id)
      VALUES (${end.id}, ${end.teamUid}, 't', 'p', 'QUEUED', now(), now(), 'API', '{}', '{}', ${end.conversationId})`.execute(db.db);
    await waitFor(() => heard.some((n) => n.type === 'run.queued' && n.runId === end.id));
    await new Promise((r) => setTimeout(r, 50));
    expect(heard).toHaveLength(3);
    expect(heard).toContainEqual({ type: 'run.queued', runId: alone.id });
  });

  it("leave no setting on the pool's connection: a host's SQL there still notifies from the triggers", async () => {
    await db.freshStore();
    // One connection: the store's deferred create and the host's statements share it.
    const { store, pool } = storeOnPool(1, false);
    const { store: other } = storeOnPool();
    const heard = await hear(other);
    // The second create defers: it sets the setting on the connection's transaction.
    const [first, run] = [makeRun(), makeRun()];
    await Promise.all([store.runs.create({ run: first, attachments: [] }), store.runs.create({ run, attachments: [] })]);
    const host = makeRun();
    await pool.query(
      `INSERT INTO "${db.schema}".runs (id, team_uid, title, prompt, state, created_at, updated_at, source, creator, config, conversation_id)
       VALUES ($1, $2, 't', 'p', 'QUEUED', now(), now(), 'API', '{}', '{}', $3)`,
      [host.id, host.teamUid, host.conversationId],
    );
    await pool.query(`UPDATE "${db.schema}".runs SET state = 'CANCELLED' WHERE id = $1`, [host.id]);
    await waitFor(() => heard.length >= 4);
    expect(heard).toContainEqual({ type: 'run.queued', runId: run.id });
    expect(heard.filter((n) => 'runId' in n && n.runId === host.id)).toEqual([
      { type: 'run.queued', runId: host.id },
      { type: 'run.changed', runId: host.id, state: 'CANCELLED' },
    ]);
  });

  it('tell nobody of a write that did not commit', async () => {
    await db.freshStore();
    const { store: writer } = storeOnPool(2, false);
    const { store: other } = storeOnPool();
    const heard = await hear(other);
    const [run, beside] = [makeRun(), makeRun()];
    await writer.runs.create({ run, attachments: [] });
    // The same id again, beside another create so that it defers: the insert fails, nothing
    // committed, nothing told.
    const [created, again] = await Promise.allSettled([
      writer.runs.create({ run: beside, attachments: [] }),
      writer.runs.create({ run, attachments: [] }),
    ]);
    expect([created.status, again.status]).toEqual(['fulfilled', 'rejected']);
    // A keyed transition that does not apply rolls its transaction back (deferred: beside a create).
    const alsoBeside = makeRun();
    const [, notApplied] = await Promise.all([
      writer.runs.create({ run: alsoBeside, attachments: [] }),
      writer.runs.transition({
        runId: run.id,
        expect: { state: 'INPROGRESS' },
        patch: { state: 'CANCELLED' },
        now: new Date().toISOString(),
        idempotency: {
          scope: 'test',
          key: `k-${run.id}`,
          fingerprint: 'f',
          now: new Date().toISOString(),
          expiresAt: new Date(Date.now() + 60_000).toISOString(),
          respond: (r) => ({ status: 200, body: r }),
        },
      }),
    ]);
    expect(notApplied.result?.applied).toBe(false);
    const end = makeRun();
    await writer.runs.create({ run: end, attachments: [] });
    await waitFor(() => heard.some((n) => n.type === 'run.queued' && n.runId === end.id));
    expect(new Set(heard)).toEqual(new Set([run, beside, alsoBeside, end].map((r): Notification => ({ type: 'run.queued', runId: r.id }))));
    expect(heard).toHaveLength(4);
  });

  it('carry many writes per send, each payload under the 8000-byte limit', async () => {
    await db.freshStore();
    const { store: writer } = storeOnPool(8, false);
    const { store: other } = storeOnPool();
    const heard = await hear(other);
    const runs = Array.from({ length: 400 }, () => makeRun({ id: `run_${'x'.repeat(40)}_${Math.random().toString(36).slice(2)}` }));
    await Promise.all(runs.map((run) => writer.runs.create({ run, attachments: [] })));
    await waitFor(() => heard.length >= runs.length);
    expect(new Set(heard.map((n) => n.type === 'run.queued' && n.runId))).toEqual(new Set(runs.map((r) => r.id)));
  });
});

describe('payloads of a send', () => {
  it('are read item by item, and dropped by the store that sent them', () => {
    const payload = JSON.stringify({
      from: 'me',
      items: [
        { type: 'run.queued', runIds: ['a', 'b'] },
        { type: 'run.changed', runId: 'a', state: 'CLAIMED', eventId: 1 },
        { type: 'run.event', runId: 'b', eventId: 4 },
        { type: 'other' },
      ],
    });
    expect(parseNotifications(payload, 'you')).toEqual([
      { type: 'run.queued', runId: 'a' },
      { type: 'run.queued', runId: 'b' },
      { type: 'run.event', runId: 'a', eventId: 1 },
      { type: 'run.changed', runId: 'a', state: 'CLAIMED' },
      { type: 'run.event', runId: 'b', eventId: 4 },
    ]);
    expect(parseNotifications(payload)).toHaveLength(5);
    expect(parseNotifications(payload, 'me')).toEqual([]);
  });
});

/** Poll `check` until it holds (the test's timeout bounds it). */
async function waitFor(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 10));
}
