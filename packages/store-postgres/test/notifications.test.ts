import type { Notification, Store } from '@agentrun/core';
import { describeNotificationsConformance, makeRun } from '@agentrun/core/testing';
import { sql } from 'kysely';
import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { parseNotifications } from '../src/notifications.js';
import { notifyChannel } from '../src/notify-channel.js';
import { openTestDatabase } from './support/database.js';

// The notifications of the PostgreSQL store (docs/stores.md, "Notifications"): the conformance
// suite the memory store passes, with a second store on a pool of its own as another process, a
// transaction that rolls back, and what is particular to LISTEN/NOTIFY. A listener needs a
// connection of its own: skipped on PGlite.
const db = await openTestDatabase('notifications');
const pools: pg.Pool[] = [];
afterAll(async () => {
  for (const pool of pools) await pool.end();
  await db.close();
});
if (!db.multiConnection) console.warn('[notifications.test] skipped: needs a PostgreSQL server');

/** A store on the file's Kysely (as freshStore), listening on a connection of its own. */
const listeningStore = async (schema = db.schema) => {
  await db.freshStore(); // empties the tables
  return createPostgresStore({ db: db.db, schema, listen: { connectionString: db.url as string } });
};

describe.skipIf(!db.multiConnection)('postgres', () => {
  describeNotificationsConformance('postgres', {
    create: () => listeningStore(),
    // Another "process": its own pool, its own listening connection (the pool's settings).
    other: () => {
      const pool = (db.newPool as (max: number) => pg.Pool)(2);
      pools.push(pool);
      return createPostgresStore({ pool, schema: db.schema });
    },
    rollback: async (_store, run) => {
      // Through SQL of its own, as a host's transaction might: the triggers fire, then it rolls back.
      const rolledBack = new Error('roll back');
      const outcome = await db.db
        .transaction()
        .execute(async (tx) => {
          await sql`INSERT INTO ${db.table('runs')} (id, team_uid, title, prompt, state, created_at, updated_at, source, creator, config, conversation_id)
            VALUES (${run.id}, ${run.teamUid}, 't', 'p', 'QUEUED', now(), now(), 'API', '{}', '{}', ${run.conversationId})`.execute(tx);
          await sql`UPDATE ${db.table('runs')} SET state = 'CANCELLED' WHERE id = ${run.id}`.execute(tx);
          await sql`INSERT INTO ${db.table('run_followups')} (id, run_id, message, created_at, creator_uid)
            VALUES (${`f-${run.id}`}, ${run.id}, 'm', now(), 'u')`.execute(tx);
          throw rolledBack;
        })
        .catch((error) => error);
      expect(outcome).toBe(rolledBack);
    },
  });
});

describe('the listening connection', () => {
  it('is the connection string of a connectionString store, the pool settings of a pool store, none for a Kysely unless given', async () => {
    const stores: Store[] = [];
    try {
      const withString = createPostgresStore({ connectionString: db.url ?? 'postgres://x', schema: db.schema });
      const pool = db.newPool?.(1);
      const withPool = pool && createPostgresStore({ pool, schema: db.schema });
      const withDb = createPostgresStore({ db: db.db, schema: db.schema });
      const withDbAndListen = createPostgresStore({ db: db.db, schema: db.schema, listen: { connectionString: db.url ?? 'postgres://x' } });
      const turnedOff = createPostgresStore({ connectionString: db.url ?? 'postgres://x', schema: db.schema, listen: false });
      stores.push(withString, withDb, withDbAndListen, turnedOff);
      expect(withString.notifications).toBeDefined();
      if (withPool) expect(withPool.notifications).toBeDefined();
      expect(withDb.notifications).toBeUndefined();
      expect(withDbAndListen.notifications).toBeDefined();
      expect(turnedOff.notifications).toBeUndefined();
      await withPool?.close();
      await pool?.end();
    } finally {
      for (const s of stores) await s.close?.();
    }
  });

  it.skipIf(!db.multiConnection)('listens only while someone does, and close() ends it', async () => {
    const appName = `agentrun_listen_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const url = new URL(db.url as string);
    url.searchParams.set('application_name', appName);
    const store = createPostgresStore({ db: db.db, schema: db.schema, listen: { connectionString: url.toString() } });
    const connections = async () =>
      Number(
        (await sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = ${appName}`.execute(db.db)).rows[0]
          ?.n,
      );
    expect(await connections()).toBe(0);
    const stop = await store.notifications?.listen(() => {});
    expect(await connections()).toBe(1);
    const stopAnother = await store.notifications?.listen(() => {});
    expect(await connections()).toBe(1);
    await stop?.();
    expect(await connections()).toBe(1);
    await stopAnother?.();
    await waitFor(async () => (await connections()) === 0);
    await store.notifications?.listen(() => {});
    expect(await connections()).toBe(1);
    await store.close();
    await waitFor(async () => (await connections()) === 0);
    await expect(store.notifications?.listen(() => {})).rejects.toThrow(/closed/);
  });

  it.skipIf(!db.multiConnection)('hears only its own schema: two installs in one database do not hear each other', async () => {
    // A schema name too long for `agentrun:<schema>` (63 bytes at most) gets a hashed channel.
    const other = await openTestDatabase('notifications_another_install_with_a_long_name');
    expect(other.schema.length).toBeGreaterThan(54);
    const here = await listeningStore();
    const there = createPostgresStore({ db: other.db, schema: other.schema, listen: { connectionString: db.url as string } });
    try {
      const heardHere: Notification[] = [];
      const heardThere: Notification[] = [];
      await here.notifications?.listen((n) => heardHere.push(n));
      await there.notifications?.listen((n) => heardThere.push(n));
      const [a, b] = [makeRun(), makeRun()];
      await there.runs.create({ run: b, attachments: [] });
      await here.runs.create({ run: a, attachments: [] });
      const end = makeRun();
      await there.runs.create({ run: end, attachments: [] });
      await waitFor(() => heardThere.length === 2 && heardHere.length === 1);
      // The hot statements name the channel as a literal (notify-channel.ts): the same as the
      // function's, for a short schema name and a hashed one.
      for (const [kysely, schema] of [
        [db.db, db.schema],
        [other.db, other.schema],
      ] as const) {
        const { rows } = await sql<{ channel: string }>`SELECT ${sql.id(schema, 'agentrun_notify_channel')}() AS channel`.execute(kysely);
        expect(notifyChannel(schema)).toBe(rows[0]?.channel);
      }
      expect(heardHere).toEqual([{ type: 'run.queued', runId: a.id }]);
      expect(heardThere).toEqual([
        { type: 'run.queued', runId: b.id },
        { type: 'run.queued', runId: end.id },
      ]);
    } finally {
      await here.close();
      await there.close();
      await other.close();
    }
  });

  it.skipIf(!db.multiConnection)('tells of the runs one INSERT adds, in their order, whatever their number', async () => {
    const store = await listeningStore();
    try {
      const heard: Notification[] = [];
      await store.notifications?.listen((n) => heard.push(n));
      // 300 runs QUEUED (more than one payload holds), one CANCELLED among them, in one statement.
      const ids = Array.from({ length: 300 }, (_, i) => `run_multi_${String(i).padStart(3, '0')}_${'x'.repeat(30)}`);
      const stateOf = (i: number) => (i === 150 ? 'CANCELLED' : 'QUEUED');
      const values = ids.map(
        (id, i) => sql`(${id}, 'team_multi', 't', 'p', ${stateOf(i)}, now(), now(), 'API', '{}', '{}', ${`conv_${id}`})`,
      );
      await sql`INSERT INTO ${db.table('runs')} (id, team_uid, title, prompt, state, created_at, updated_at, source, creator, config, conversation_id)
        VALUES ${sql.join(values)}`.execute(db.db);
      await waitFor(() => heard.length === ids.length);
      expect(heard).toEqual(
        ids.map(
          (runId, i): Notification => (i === 150 ? { type: 'run.changed', runId, state: 'CANCELLED' } : { type: 'run.queued', runId }),
        ),
      );
    } finally {
      await store.close();
    }
  });
});

describe('payloads', () => {
  it('are read when they are what the triggers send, and ignored otherwise', () => {
    expect(parseNotifications('{"type":"run.queued","runId":"r"}')).toEqual([{ type: 'run.queued', runId: 'r' }]);
    // The runs one INSERT added QUEUED: one run.queued each, in order.
    expect(parseNotifications('{"type":"run.queued","runIds":["a","b"]}')).toEqual([
      { type: 'run.queued', runId: 'a' },
      { type: 'run.queued', runId: 'b' },
    ]);
    expect(parseNotifications('{"type":"run.changed","runId":"r","state":"CANCELLED"}')).toEqual([
      { type: 'run.changed', runId: 'r', state: 'CANCELLED' },
    ]);
    // A change of state whose UPDATE appended events: the run.event, then the change.
    expect(parseNotifications('{"type":"run.changed","runId":"r","state":"INPROGRESS","eventId":7}')).toEqual([
      { type: 'run.event', runId: 'r', eventId: 7 },
      { type: 'run.changed', runId: 'r', state: 'INPROGRESS' },
    ]);
    expect(parseNotifications('{"type":"run.event","runId":"r","eventId":3}')).toEqual([{ type: 'run.event', runId: 'r', eventId: 3 }]);
    expect(parseNotifications('{"type":"run.followup","runId":"r","followupId":"f"}')).toEqual([
      { type: 'run.followup', runId: 'r', followupId: 'f' },
    ]);
    for (const junk of [
      undefined,
      '',
      'not json',
      'null',
      '"run.queued"',
      '{"type":"run.queued"}',
      '{"type":"run.queued","runIds":"a"}',
      '{"type":"run.queued","runIds":["a",1]}',
      '{"type":"run.changed","runId":"r","state":"DONE"}',
      '{"type":"run.changed","runId":"r","state":"FAILED","eventId":"7"}',
      '{"type":"run.event","runId":"r","eventId":1.5}',
      '{"type":"run.followup","runId":"r"}',
      '{"type":"resync"}',
      '{"type":"other","runId":"r"}',
    ])
      expect(parseNotifications(junk)).toEqual([]);
  });
});

/** Poll `check` until it holds (the test's timeout bounds it). */
async function waitFor(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 10));
}
