import { type AgentRunHandler, createAgentRunHandler, type Executor, type RunService, type RunState } from '@agentrun/core';
import { TERMINAL_STATES } from '@agentrun/core/store';
import { testPrincipal } from '@agentrun/core/testing';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresStore, describeSchema, MIGRATIONS } from '../src/index.js';
import { openTestDatabase } from './support/database.js';
import { readExecutionLog, resetExecutionLog } from './support/execution-log.js';
import { useProcesses } from './support/processes.js';
import { sleep, waitUntil } from './support/wait.js';

// Several processes and connections on one database at once. PGlite is a single in-process
// connection, so where no PostgreSQL server answers these tests are skipped (in CI that is an error).
const db = await openTestDatabase('concurrency');
afterAll(() => db.close());
const needsServer = it.skipIf(!db.multiConnection);
if (!db.multiConnection) console.warn('[concurrency.test] skipped: needs a PostgreSQL server (several connections and processes)');

const procs = useProcesses();
const principal = testPrincipal();
const url = () => db.url as string;
const TERMINAL = [...TERMINAL_STATES];

async function createRuns(service: RunService, count: number, prompt: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 50) {
    const batch = Array.from({ length: Math.min(50, count - i) }, (_, j) => service.create(principal, { prompt: `${prompt} ${i + j}` }));
    for (const created of await Promise.all(batch)) ids.push(created.body.run_id);
  }
  return ids;
}

interface RunRow {
  id: string;
  state: RunState;
  attempts: number;
  started_at: Date | null;
  lease_worker_id: string | null;
  status_message: { message?: string } | null;
}
const runRows = async (ids: string[]) =>
  (
    await sql<RunRow>`SELECT id, state, attempts, started_at, lease_worker_id, status_message FROM ${db.table('runs')} WHERE id = ANY(${ids})`.execute(
      db.db,
    )
  ).rows;
const countTerminal = async (ids: string[]) =>
  Number(
    (
      await sql<{ n: string }>`SELECT count(*) AS n FROM ${db.table('runs')} WHERE id = ANY(${ids}) AND state = ANY(${TERMINAL})`.execute(
        db.db,
      )
    ).rows[0]?.n,
  );

/** A schema name of its own (nothing in it yet: migrate() creates it) for a test that must start from nothing; dropped after. */
async function withFreshSchema<T>(suffix: string, use: (schema: string) => Promise<T>): Promise<T> {
  const schema = `${db.schema}_${suffix}`;
  try {
    return await use(schema);
  } finally {
    await procs.stopTestProcesses();
    await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(db.db);
  }
}

describe('store-postgres under concurrency', () => {
  needsServer(
    '4 worker processes claiming 500 runs execute every run exactly once',
    async () => {
      const store = await db.freshStore();
      await resetExecutionLog(db.db, db.schema);
      const { service } = createAgentRunHandler({ store });
      // Ready first, released together: all four compete for the queue from its first run.
      const workers = await Promise.all(
        [1, 2, 3, 4].map((n) =>
          procs.worker({
            databaseUrl: url(),
            schema: db.schema,
            workerId: `w${n}`,
            concurrency: 8,
            pollIntervalMs: 20,
            executeMs: 2,
            waitForGo: true,
          }),
        ),
      );
      const ids = await createRuns(service, 500, 'exactly once');
      for (const worker of workers) worker.go();

      await waitUntil(
        () => countTerminal(ids),
        (n) => n === ids.length,
        'all 500 runs to end',
        45_000,
        100,
      );
      const exits = await Promise.all(workers.map((w) => w.stop()));
      expect(exits, 'every worker stops cleanly on SIGTERM').toEqual(workers.map(() => ({ code: 0, signal: null })));

      const log = await readExecutionLog(db.db, db.schema);
      const started = log.filter((e) => e.event === 'started');
      const executions = new Map<string, string[]>();
      for (const e of started) executions.set(e.runId, [...(executions.get(e.runId) ?? []), e.workerId]);
      expect(
        [...executions].filter(([, by]) => by.length > 1),
        'runs executed more than once',
      ).toEqual([]);
      expect(
        ids.filter((id) => !executions.has(id)),
        'runs never executed',
      ).toEqual([]);
      expect(started).toHaveLength(ids.length);
      expect(log.filter((e) => e.event === 'aborted')).toEqual([]);

      for (const run of await runRows(ids)) {
        const by = executions.get(run.id)?.[0];
        expect({
          id: run.id,
          state: run.state,
          attempts: run.attempts,
          message: run.status_message?.message,
          lease: run.lease_worker_id,
        }).toEqual({
          id: run.id,
          state: 'SUCCEEDED',
          attempts: 1,
          message: `done by ${by}`,
          lease: null,
        });
      }
      // The claims really were contended: more than one process did work.
      expect(new Set(started.map((e) => e.workerId)).size).toBeGreaterThan(1);
    },
    90_000,
  );

  needsServer(
    '20 concurrent creates with one Idempotency-Key through two server processes make exactly one run',
    async () => {
      await withFreshSchema('idem', async (schema) => {
        const apiKey = `ar_concurrency-${Math.random().toString(36).slice(2)}`;
        // Both start on an empty schema: their migrations and bootstrap keys race as well.
        const servers = await Promise.all(
          ['server-a', 'server-b'].map((name) =>
            procs.server({ name, databaseUrl: url(), schema, apiKey, demoDurationMs: 50, pollIntervalMs: 50 }),
          ),
        );
        const key = `idem-${Date.now()}`;
        const post = (server: { url: string }, body: unknown) =>
          fetch(`${server.url}/api/v1/agent/run`, {
            method: 'POST',
            headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': key },
            body: JSON.stringify(body),
          });
        const body = { prompt: 'exactly one run, however many ask', title: 'idempotent create' };

        const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => post(servers[i % 2] as { url: string }, body)));
        const answers = await Promise.all(
          responses.map(async (r) => ({ status: r.status, replayed: r.headers.get('idempotent-replayed'), body: await r.json() })),
        );
        expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
        const runIds = new Set(answers.map((a) => (a.body as { run_id: string }).run_id));
        expect(runIds.size).toBe(1);
        // One request created the run; the other 19 were answered from the key.
        expect(answers.filter((a) => a.replayed === 'true')).toHaveLength(19);

        const pool = new pg.Pool({ connectionString: url(), max: 1 });
        try {
          const runs = (await pool.query<{ id: string }>(`SELECT id FROM ${schema}.runs`)).rows.map((r) => r.id);
          expect(runs).toEqual([...runIds]);

          for (const server of servers) {
            const conflict = await post(server, { ...body, prompt: 'a different request' });
            expect(conflict.status).toBe(409);
            expect(conflict.headers.get('content-type')).toMatch(/^application\/problem\+json/);
            expect(await conflict.json()).toMatchObject({ status: 409, error: 'idempotency_conflict' });
          }
          expect((await pool.query(`SELECT id FROM ${schema}.runs`)).rowCount).toBe(1);

          const migrations = await pool.query<{ id: string }>(`SELECT id FROM ${schema}.agentrun_migrations ORDER BY id`);
          expect(migrations.rows.map((r) => r.id)).toEqual(MIGRATIONS.map((m) => m.id).sort());
        } finally {
          await pool.end();
        }
      });
    },
    60_000,
  );

  needsServer(
    'a run cancelled while a worker claims it ends CANCELLED and never executes after the cancel',
    async () => {
      await db.freshStore();
      // Two pools: the canceller and the worker are as separate as two processes (their events
      // too), so the worker learns of a cancel only through the store, at its heartbeat.
      const cancellerPool = (db.newPool as NonNullable<typeof db.newPool>)(4);
      const workerPool = (db.newPool as NonNullable<typeof db.newPool>)(4);
      const canceller = createAgentRunHandler({ store: createPostgresStore({ pool: cancellerPool, schema: db.schema }) });
      const workerSide: AgentRunHandler = createAgentRunHandler({ store: createPostgresStore({ pool: workerPool, schema: db.schema }) });

      const cancelledFrom = new Map<string, RunState>();
      canceller.events.on('run.state_changed', (e) => {
        if (e.to === 'CANCELLED') cancelledFrom.set(e.run.run_id, e.from);
      });
      const movedToInProgress = new Set<string>();
      workerSide.events.on('run.state_changed', (e) => {
        if (e.to === 'INPROGRESS') movedToInProgress.add(e.run.run_id);
      });

      // Each execution waits to be aborted; one that is never aborted finishes after a while,
      // which the assertions below catch.
      const started = new Set<string>();
      const aborted = new Set<string>();
      const finished = new Set<string>();
      const executor: Executor = {
        async execute(input, ctx) {
          const id = input.run.run_id;
          started.add(id);
          const wasAborted = await new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(false), 10_000);
            const onAbort = () => {
              clearTimeout(timer);
              resolve(true);
            };
            if (ctx.signal.aborted) onAbort();
            else ctx.signal.addEventListener('abort', onAbort, { once: true });
          });
          if (wasAborted) {
            aborted.add(id);
            throw ctx.signal.reason;
          }
          finished.add(id);
          return { status: 'succeeded' };
        },
      };
      const worker = workerSide.app.worker({ executor, workerId: 'racer', concurrency: 1000, heartbeatMs: 10 });

      try {
        const ids: string[] = [];
        // Rounds of 10: the worker claims the round's runs one by one while each is cancelled
        // after a random 0-6 ms, so cancels land before the claim, between claim and start, and
        // after the start.
        for (let round = 0; round < 30; round++) {
          const batch = await createRuns(canceller.service, 10, `race ${round}`);
          ids.push(...batch);
          await Promise.all([
            worker.poll(),
            ...batch.map(async (id) => {
              await sleep(Math.floor(Math.random() * 7));
              const result = await canceller.service.cancel(principal, id);
              expect(result).toMatchObject({ status: 200, body: id });
            }),
          ]);
        }
        await Promise.race([
          worker.idle(),
          sleep(20_000).then(() => {
            throw new Error('executions still running 20 s after every run was cancelled');
          }),
        ]);

        const runs = await runRows(ids);
        expect(runs).toHaveLength(300);
        expect(runs.filter((r) => r.state !== 'CANCELLED' || r.lease_worker_id !== null)).toEqual([]);
        expect(
          ids.filter((id) => !cancelledFrom.has(id)),
          'runs whose cancel did not apply',
        ).toEqual([]);

        const startedAt = new Map(runs.map((r) => [r.id, r.started_at]));
        const violations: string[] = [];
        for (const id of ids) {
          const from = cancelledFrom.get(id);
          if (from === 'QUEUED' || from === 'CLAIMED') {
            // Cancelled before it started: it must never start afterwards.
            if (started.has(id) || movedToInProgress.has(id) || startedAt.get(id) !== null)
              violations.push(`${id}: started after a cancel from ${from}`);
          } else if (from === 'INPROGRESS') {
            // Started before the cancel landed: allowed, but the execution must be told to stop.
            if (!aborted.has(id)) violations.push(`${id}: cancelled while INPROGRESS but its execution was not aborted`);
          } else {
            violations.push(`${id}: cancelled from ${from}`);
          }
        }
        expect(violations).toEqual([]);
        expect([...finished], 'executions that ran to completion despite the cancel').toEqual([]);

        // The race was real: some cancels found the run already claimed by the worker.
        const froms = [...cancelledFrom.values()];
        expect(froms.filter((f) => f !== 'QUEUED').length).toBeGreaterThan(0);
      } finally {
        await worker.stop();
        await Promise.all([cancellerPool.end(), workerPool.end()]);
      }
    },
    60_000,
  );

  needsServer(
    'migrate() from 4 connections at once on a schema that does not exist yet succeeds everywhere and applies each migration once',
    async () => {
      // The schema one migrate() builds alone, to compare with those built under contention.
      const reference = await withFreshSchema('m_alone', async (schema) => {
        const store = createPostgresStore({ connectionString: url(), schema, poolSize: 1 });
        try {
          await store.migrate();
          return await describeSchema(store.db, { schema });
        } finally {
          await store.close();
        }
      });
      for (let round = 0; round < 3; round++) {
        await withFreshSchema(`m${round}`, async (schema) => {
          const pools = [1, 2, 3, 4].map(() => new pg.Pool({ connectionString: url(), max: 1 }));
          const stores = pools.map((pool) => createPostgresStore({ pool, schema }));
          try {
            // Connect first, so the four calls race for the migration lock rather than for connections.
            await Promise.all(pools.map((pool) => pool.query('SELECT 1')));
            const results = await Promise.all(stores.map((store) => store.migrate()));

            expect(results.flatMap((r) => r.applied).sort()).toEqual(MIGRATIONS.map((m) => m.id).sort());
            const recorded = await sql<{
              id: string;
              n: string;
            }>`SELECT id, count(*) AS n FROM ${sql.table(`${schema}.agentrun_migrations`)} GROUP BY id ORDER BY id`.execute(db.db);
            expect(recorded.rows).toEqual(MIGRATIONS.map((m) => ({ id: m.id, n: '1' })).sort((a, b) => a.id.localeCompare(b.id)));
            // The schema built under contention is the schema built alone.
            expect(await describeSchema(db.db, { schema })).toBe(reference);
          } finally {
            await Promise.all(pools.map((pool) => pool.end()));
          }
        });
      }
    },
    30_000,
  );
});
