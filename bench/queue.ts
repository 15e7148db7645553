import { createAgentRun, type Executor } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { createPostgresStore } from '@agentrun/store-postgres';
import { Logger, makeWorkerUtils, type Runner, run as runGraphile } from 'graphile-worker';
import pg from 'pg';
import { type BackendCpu, backendCpu, cpuBetween, withApplicationName } from './backend-cpu.js';
import { inScratchSchema, scratchSchema } from './pg-admin.js';
import type { BenchGroup } from './run.js';

/**
 * agentrun's queue beside graphile-worker on the same database, in one run, rounds alternating
 * (bench/README.md, "queue: beside graphile-worker"): the same jobs (a no-op executor, a
 * no-op task), the same callers, the same concurrency and poll interval, each side's worker
 * running only in its own phases, in this process.
 *
 * - enqueue: CALLERS callers add JOBS jobs, no worker running (`services.runs.create`, `addJob`);
 * - e2e: with the worker running, CALLERS callers add JOBS jobs; timed until the last completes
 *   (agentrun: the worker wrote SUCCEEDED; graphile: `job:complete`);
 * - pickup: an idle, listening worker; one job at a time, from before the add to the executor's
 *   (task's) start; p50 over PICKUPS.
 *
 * Statements per job are every query a pg client sent during the e2e phase (pg.Client#query,
 * counted here: polls and the worker's own reads included) over JOBS, and CPU per job this
 * process's CPU time (producer and worker, not the server's) over JOBS. Server CPU per job is the
 * CPU time of every backend of the side's connections (told apart by `application_name`, read from
 * /proc when the server runs on this machine) over JOBS: what bounds e2e on a shared machine, and
 * steadier than the rates when the machine is loaded.
 *
 * `DATABASE_URL`, else the local server the tests use. Without a server the group is skipped.
 */

const ROUNDS = 3;
const JOBS = 1000;
const CALLERS = 16;
const PICKUPS = 40;
const CONCURRENCY = 8;
const POLL_MS = 1000;
const principal = testPrincipal();

export const queueGroup: BenchGroup = {
  name: 'queue',
  description: `agentrun beside graphile-worker, same database, alternating rounds: enqueue (${CALLERS} callers), enqueue-to-complete (no-op), pickup p50`,
  run: () => inScratchSchema('bench_queue', measure),
};

/** One side of the comparison: how it adds a job and runs a worker. */
interface Side {
  name: 'agentrun' | 'graphile';
  /** The `application_name` of its connections. */
  applicationName: string;
  add(i: number): Promise<unknown>;
  /** Start a worker; resolves once it listens. `started` hears each job's start, `completed` each completion. */
  startWorker(hooks: { started: () => void; completed: () => void }): Promise<() => Promise<void>>;
}

interface Round {
  enqueuePerS: number;
  e2ePerS: number;
  pickupP50Ms: number;
  statementsPerJob: number;
  cpuMsPerJob: number;
  /** The server's CPU (every backend of the side) per job of the e2e phase; NaN when it cannot be read. */
  serverCpuMsPerJob: number;
}

async function measure(baseUrl: string, schema: string): Promise<Record<string, number>> {
  const graphileSchema = scratchSchema('bench_queue_graphile');
  // Each side's connections carry its name, so the server's CPU can be told apart (`backendCpu`).
  const url = withApplicationName(baseUrl, `${schema}_agentrun`);
  const graphileUrl = withApplicationName(baseUrl, `${schema}_graphile`);
  backends = await backendCpu(baseUrl);
  const producerStore = createPostgresStore({ connectionString: url, schema, poolSize: CALLERS, listen: false });
  const workerStore = createPostgresStore({ connectionString: url, schema, poolSize: 10 });
  const utils = await makeWorkerUtils({ connectionString: graphileUrl, schema: graphileSchema, maxPoolSize: CALLERS });
  try {
    await producerStore.migrate();
    await utils.migrate();
    const producer = createAgentRun({ store: producerStore, executor: { execute: () => Promise.reject(new Error('no worker here')) } });
    let hooks = { started: () => {}, completed: () => {} };
    const noop: Executor = {
      async execute() {
        hooks.started();
        return { status: 'succeeded' };
      },
    };
    const workerApp = createAgentRun({ store: workerStore, executor: noop });
    workerApp.events.on('run.state_changed', (e) => {
      if (e.to === 'SUCCEEDED') hooks.completed();
    });
    const agentrun: Side = {
      name: 'agentrun',
      applicationName: `${schema}_agentrun`,
      add: (i) => producer.services.runs.create(principal, { prompt: `queue bench ${i}` }),
      async startWorker(h) {
        hooks = h;
        const worker = workerApp.worker({ concurrency: CONCURRENCY, pollIntervalMs: POLL_MS });
        worker.start();
        await worker.idle();
        return () => worker.stop();
      },
    };
    const graphile: Side = {
      name: 'graphile',
      applicationName: `${schema}_graphile`,
      add: (i) => utils.addJob('noop', { i }),
      async startWorker(h) {
        const runner: Runner = await runGraphile({
          connectionString: graphileUrl,
          schema: graphileSchema,
          concurrency: CONCURRENCY,
          pollInterval: POLL_MS,
          noHandleSignals: true,
          logger: silentLogger(),
          taskList: {
            noop: async () => {
              h.started();
            },
          },
        });
        runner.events.on('job:complete', () => h.completed());
        // Its LISTEN is set up as it starts; give it a moment to be listening.
        await new Promise((resolve) => setTimeout(resolve, 200));
        return () => runner.stop();
      },
    };

    const rounds: Record<Side['name'], Round[]> = { agentrun: [], graphile: [] };
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate who goes first, so neither always meets a warmer (or busier) server.
      for (const side of r % 2 === 0 ? [agentrun, graphile] : [graphile, agentrun]) rounds[side.name].push(await round(side));
    }
    const median = (name: Side['name'], key: keyof Round) => {
      const xs = rounds[name].map((x) => x[key]).sort((a, b) => a - b);
      return xs[Math.floor(xs.length / 2)] as number;
    };
    for (const name of ['agentrun', 'graphile'] as const)
      console.log(
        `${name}: enqueue ${median(name, 'enqueuePerS').toFixed(0)}/s, e2e ${median(name, 'e2ePerS').toFixed(0)}/s, ` +
          `pickup p50 ${median(name, 'pickupP50Ms').toFixed(2)} ms; per job (e2e): ${median(name, 'statementsPerJob').toFixed(2)} statements, ` +
          `${median(name, 'cpuMsPerJob').toFixed(3)} ms CPU in this process, ${median(name, 'serverCpuMsPerJob').toFixed(3)} ms in the server's backends`,
      );
    return {
      'queue.enqueue_vs_graphile': median('agentrun', 'enqueuePerS') / median('graphile', 'enqueuePerS'),
      'queue.e2e_vs_graphile': median('agentrun', 'e2ePerS') / median('graphile', 'e2ePerS'),
      'queue.pickup_p50_vs_graphile': median('agentrun', 'pickupP50Ms') / median('graphile', 'pickupP50Ms'),
      'queue.agentrun_pickup_p50_ms': median('agentrun', 'pickupP50Ms'),
      'queue.graphile_pickup_p50_ms': median('graphile', 'pickupP50Ms'),
      'queue.agentrun_statements_per_run': median('agentrun', 'statementsPerJob'),
      'queue.graphile_statements_per_job': median('graphile', 'statementsPerJob'),
      // Steadier than the rates on a loaded machine: what bounds e2e is the server's CPU per job.
      'queue.agentrun_server_cpu_ms_per_run': median('agentrun', 'serverCpuMsPerJob'),
      'queue.graphile_server_cpu_ms_per_job': median('graphile', 'serverCpuMsPerJob'),
      'queue.server_cpu_vs_graphile': median('agentrun', 'serverCpuMsPerJob') / median('graphile', 'serverCpuMsPerJob'),
    };
  } finally {
    await utils.release();
    await backends.close();
    await producerStore.close();
    await workerStore.close();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${graphileSchema} CASCADE`);
    await admin.end();
  }
}

/** One round of one side: enqueue (no worker), drain, e2e, pickup. */
async function round(side: Side): Promise<Round> {
  // Enqueue, no worker: then drain what it added, untimed.
  let t0 = performance.now();
  await callers(JOBS, side.add);
  const enqueuePerS = JOBS / ((performance.now() - t0) / 1000);
  await drain(side, JOBS);

  // Enqueue to complete.
  let completed = 0;
  let allDone: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    allDone = resolve;
  });
  const stop = await side.startWorker({
    started: () => {},
    completed: () => {
      if (++completed === JOBS) allDone();
    },
  });
  const statementsBefore = statements;
  const serverBefore = await backends.read(side.applicationName);
  const cpuBefore = process.cpuUsage();
  t0 = performance.now();
  await callers(JOBS, side.add);
  await done;
  const e2eMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpuBefore);
  const statementsPerJob = (statements - statementsBefore) / JOBS;
  const serverAfter = await backends.read(side.applicationName);
  await stop();
  const serverCpuMs = cpuBetween(serverBefore, serverAfter);

  // Pickup: one at a time to an idle, listening worker.
  let onStart: () => void = () => {};
  const stopIdle = await side.startWorker({ started: () => onStart(), completed: () => {} });
  const pickups: number[] = [];
  for (let i = 0; i < PICKUPS; i++) {
    const started = new Promise<void>((resolve) => {
      onStart = resolve;
    });
    const t = performance.now();
    await side.add(i);
    await started;
    pickups.push(performance.now() - t);
    // Let the completion land before the next sample.
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await stopIdle();
  pickups.sort((a, b) => a - b);
  return {
    enqueuePerS,
    e2ePerS: JOBS / (e2eMs / 1000),
    pickupP50Ms: pickups[Math.floor(pickups.length / 2)] as number,
    statementsPerJob,
    cpuMsPerJob: (cpu.user + cpu.system) / 1000 / JOBS,
    serverCpuMsPerJob: serverCpuMs / JOBS,
  };
}

/** The backends' CPU of each side (its connections' `application_name`), set up by `measure`. */
let backends: BackendCpu;

/** Run `n` adds from CALLERS concurrent callers. */
async function callers(n: number, add: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (next < n) await add(next++);
    }),
  );
}

/** Run the side's worker until `n` jobs completed. */
async function drain(side: Side, n: number): Promise<void> {
  let completed = 0;
  let allDone: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    allDone = resolve;
  });
  const stop = await side.startWorker({
    started: () => {},
    completed: () => {
      if (++completed === n) allDone();
    },
  });
  await done;
  await stop();
}

// Every statement a pg client sends in this process, both sides alike.
let statements = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  statements++;
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;

function silentLogger() {
  // graphile-worker's Logger: a factory of log functions; this one drops everything but errors.
  return new Logger(() => (level: string, message: string) => {
    if (level === 'error') console.error(`[graphile-worker] ${message}`);
  });
}
