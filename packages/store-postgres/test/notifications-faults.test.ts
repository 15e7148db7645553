import { createAgentRunHandler, type ExecutionContext, type Executor, type Notification, type Worker } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createPostgresStore, DEFAULT_SCHEMA, type PostgresStore } from '../src/index.js';
import { openTestDatabase } from './support/database.js';
import { createOwnCluster, type OwnCluster, ownClusterUnavailable } from './support/own-cluster.js';
import { waitUntil } from './support/wait.js';

// The listening connection survives its database (docs/stores.md, "Notifications"): a terminated
// backend or a stopped cluster is reported once, never as an unhandled 'error' event (vitest fails
// the file on one), the connection comes back by itself with backoff, and listeners hear `resync`,
// so a worker whose polls and heartbeats are an hour apart still picks up a run created meanwhile.
const db = await openTestDatabase('notifications_faults');
const pools: pg.Pool[] = [];
afterAll(async () => {
  for (const pool of pools) await pool.end();
  await db.close();
});
const noCluster = ownClusterUnavailable();
if (!db.multiConnection) console.warn('[notifications-faults.test] skipped: needs a PostgreSQL server');

const principal = testPrincipal();
const HOUR = 3_600_000;

/** An executor that records which runs it got and runs until aborted. */
function heldExecutor() {
  const started: { runId: string; ctx: ExecutionContext }[] = [];
  const executor: Executor = {
    execute(input, ctx) {
      started.push({ runId: input.run.run_id, ctx });
      return new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
    },
  };
  return { executor, started };
}

/** A connection string whose sessions carry `appName`, to find (and terminate) them. */
const named = (url: string, appName: string) => {
  const u = new URL(url);
  u.searchParams.set('application_name', appName);
  return u.toString();
};

describe.skipIf(!db.multiConnection)('the listening connection terminated (shared server, own backend only)', () => {
  const stores: PostgresStore[] = [];
  const workers: Worker[] = [];
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.stop();
    for (const s of stores.splice(0)) await s.close();
  });

  it('is reported once, reconnects, says resync, and a run created meanwhile is still picked up', async () => {
    await db.freshStore();
    const appName = `agentrun_listener_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const listenerErrors: Error[] = [];
    const store = createPostgresStore({
      db: db.db,
      schema: db.schema,
      listen: { connectionString: named(db.url as string, appName), onError: (e) => listenerErrors.push(e) },
    });
    stores.push(store);
    const heard: Notification[] = [];
    await store.notifications?.listen((n) => heard.push(n));
    const { executor, started } = heldExecutor();
    const handler = createAgentRunHandler({ store });
    const worker = handler.app.worker({ executor, pollIntervalMs: HOUR, heartbeatMs: HOUR, leaseMs: 2 * HOUR });
    workers.push(worker);
    worker.start();
    await worker.idle();

    // Another process creates runs: one right as the listener's backend goes, one after it is back.
    const pool = (db.newPool as (max: number) => pg.Pool)(2);
    pools.push(pool);
    const elsewhere = createAgentRunHandler({ store: createPostgresStore({ pool, schema: db.schema, listen: false }) });
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      const terminated = await admin.query<{ n: number }>(
        'SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1',
        [appName],
      );
      expect(terminated.rows[0]?.n).toBe(1);
      const during = (await elsewhere.service.create(principal, { prompt: 'while the listener is down' })).body.run_id;
      await waitUntil(
        () => started.map((s) => s.runId),
        (ids) => ids.includes(during),
        'the run created during the outage to be picked up',
      );
      expect(heard.some((n) => n.type === 'resync')).toBe(true);
      const after = (await elsewhere.service.create(principal, { prompt: 'once it is back' })).body.run_id;
      await waitUntil(
        () => started.map((s) => s.runId),
        (ids) => ids.includes(after),
        'the run created after the reconnect to be picked up',
      );
      expect(listenerErrors).toHaveLength(1);
      expect(listenerErrors[0]?.message).toMatch(/terminat/i);
      expect(
        (await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [appName])).rows[0]
          ?.n,
      ).toBe(1);
    } finally {
      await admin.end();
    }
  });
});

describe.skipIf(!db.multiConnection || noCluster !== undefined)('the database stopped and started again (own cluster)', () => {
  let cluster: OwnCluster | undefined;
  afterEach(() => cluster?.destroy());

  it('reports the outage once however many reconnects fail, then hears again and says resync', async () => {
    cluster = await createOwnCluster();
    const errors: Error[] = [];
    const listenerErrors: Error[] = [];
    const store = createPostgresStore({
      connectionString: cluster.url,
      onError: (e) => errors.push(e),
      listen: { connectionString: cluster.url, onError: (e) => listenerErrors.push(e) },
    });
    try {
      await store.migrate();
      expect(store.schema).toBe(DEFAULT_SCHEMA);
      const { executor, started } = heldExecutor();
      const handler = createAgentRunHandler({ store });
      const worker = handler.app.worker({
        executor,
        pollIntervalMs: HOUR,
        heartbeatMs: HOUR,
        leaseMs: 2 * HOUR,
        onError: () => {},
      });
      const heard: Notification[] = [];
      await store.notifications?.listen((n) => heard.push(n));
      worker.start();
      await worker.idle();
      try {
        cluster.stop();
        await waitUntil(
          () => listenerErrors.length,
          (n) => n > 0,
          'the lost connection to be reported',
        );
        // Reconnects fail (refused) while it is down: 100, 200, 400, 800 ms… apart.
        await new Promise((r) => setTimeout(r, 1_500));
        cluster.start();
        await waitUntil(
          () => heard.filter((n) => n.type === 'resync').length,
          (n) => n === 1,
          'resync once listening again',
          20_000,
        );
        expect(listenerErrors).toHaveLength(1);
        const runId = (await handler.service.create(principal, { prompt: 'after the outage' })).body.run_id;
        await waitUntil(
          () => started.map((s) => s.runId),
          (ids) => ids.includes(runId),
          'the run created after the outage to be picked up',
        );
      } finally {
        await worker.stop();
      }
    } finally {
      await store.close();
    }
  }, 60_000);
});
