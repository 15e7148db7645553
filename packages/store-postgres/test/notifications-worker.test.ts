import {
  type AgentRunHandler,
  createAgentRunHandler,
  type ExecutionContext,
  type Executor,
  type FollowupRecord,
  type Worker,
} from '@agentrun/core';
import { makeDelivery, makeRun, seedEnvironments, testPrincipal } from '@agentrun/core/testing';
import type pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createPostgresStore, type PostgresStore } from '../src/index.js';
import { openTestDatabase } from './support/database.js';
import { waitUntil } from './support/wait.js';

// A worker hears writes of another process through LISTEN/NOTIFY (docs/executors.md): with polls
// and heartbeats an hour apart, a run created through a second store (its own pool, as another
// process) is claimed, and its follow-up and cancel reach the execution, well within the test's
// timeout. Without notifications none of it would happen before the hour.
const db = await openTestDatabase('notifications_worker');
const pools: pg.Pool[] = [];
afterAll(async () => {
  for (const pool of pools) await pool.end();
  await db.close();
});
if (!db.multiConnection) console.warn('[notifications-worker.test] skipped: needs a PostgreSQL server');

const principal = testPrincipal();
const HOUR = 3_600_000;

/** An executor that runs until aborted, keeping each execution's context and follow-ups. */
function heldExecutor() {
  const calls: { runId: string; ctx: ExecutionContext; followups: FollowupRecord[] }[] = [];
  const executor: Executor = {
    execute(input, ctx) {
      const call = { runId: input.run.run_id, ctx, followups: [] as FollowupRecord[] };
      ctx.onFollowup((f) => call.followups.push(f));
      calls.push(call);
      return new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
    },
  };
  return { executor, calls };
}

describe.skipIf(!db.multiConnection)('a worker on PostgreSQL with notifications', () => {
  const stores: PostgresStore[] = [];
  const workers: Worker[] = [];
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.stop();
    for (const s of stores.splice(0)) await s.close();
  });

  /** The worker's process: its store listens on a connection of its own. */
  const workerSide = async () => {
    await db.freshStore();
    const store = createPostgresStore({ db: db.db, schema: db.schema, listen: { connectionString: db.url as string } });
    stores.push(store);
    const { executor, calls } = heldExecutor();
    const handler = createAgentRunHandler({ store });
    const worker = handler.app.worker({ executor, pollIntervalMs: HOUR, heartbeatMs: HOUR, leaseMs: 2 * HOUR });
    workers.push(worker);
    worker.start();
    await worker.idle(); // its first poll found nothing
    return { store, calls };
  };

  /** Another process: a store on a pool of its own, and a handler over it. */
  const otherSide = (): AgentRunHandler => {
    const pool = (db.newPool as (max: number) => pg.Pool)(2);
    pools.push(pool);
    const store = createPostgresStore({ pool, schema: db.schema, listen: false });
    stores.push(store);
    return createAgentRunHandler({ store });
  };

  it('claims a run created elsewhere, then its follow-up and its cancel reach the execution at once', async () => {
    const { store, calls } = await workerSide();
    const elsewhere = otherSide();

    const runId = (await elsewhere.service.create(principal, { prompt: 'from another process' })).body.run_id;
    await waitUntil(
      () => calls.length,
      (n) => n === 1,
      'the run to be claimed and executed',
    );
    expect(calls[0]?.runId).toBe(runId);
    await waitUntil(
      () => store.runs.get(runId).then((r) => r?.state),
      (s) => s === 'INPROGRESS',
      'INPROGRESS',
    );

    await elsewhere.service.followup(principal, runId, { message: 'and this too' });
    await waitUntil(
      () => calls[0]?.followups.map((f) => f.message),
      (m) => m?.length === 1,
      'the follow-up to reach the execution',
    );
    expect(calls[0]?.followups.map((f) => f.message)).toEqual(['and this too']);

    await elsewhere.service.cancel(principal, runId);
    await waitUntil(
      () => calls[0]?.ctx.signal.aborted,
      (aborted) => aborted === true,
      'the cancel to abort the execution',
    );
    expect(String(calls[0]?.ctx.signal.reason)).toContain('CANCELLED');
    expect((await store.runs.get(runId))?.state).toBe('CANCELLED');
  });

  it('claims runs an accepted webhook delivery created (the ingress writes through its SQL function)', async () => {
    const { calls } = await workerSide();
    const elsewhere = otherSide();
    const run = (await elsewhere.service.create(principal, { prompt: 'first' })).body.run_id;
    await waitUntil(
      () => calls.length,
      (n) => n === 1,
      'the first run',
    );
    // A second one through the delivery log's accept, as the ingress stores webhook runs.
    const webhookRun = makeRun({ source: 'WEBHOOK' });
    const pool = (db.newPool as (max: number) => pg.Pool)(1);
    pools.push(pool);
    const ingressSide = createPostgresStore({ pool, schema: db.schema, listen: false });
    stores.push(ingressSide);
    // Its config names an environment, which a worker opens before executing: it must exist.
    await seedEnvironments(ingressSide, webhookRun.teamUid, webhookRun.config.environment_id as string);
    expect(await ingressSide.deliveries.accept({ delivery: makeDelivery(), runs: [{ run: webhookRun, attachments: [] }] })).toEqual({
      accepted: true,
    });
    await waitUntil(
      () => calls.map((c) => c.runId),
      (ids) => ids.length === 2,
      'the webhook run',
    );
    expect(calls.map((c) => c.runId)).toEqual([run, webhookRun.id]);
  });
});
