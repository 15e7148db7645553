import { fileURLToPath } from 'node:url';
import { createAgentRun, type Executor } from '@agentrun/core';
import { processExecutor } from '@agentrun/executor-process';
import { createPostgresStore } from '@agentrun/store-postgres';
import { runIdleWorker } from './idle-worker.js';

/**
 * A worker process of the `executor` bench (bench/executor.ts), forked with an IPC channel: a
 * PostgreSQL store on EXECUTOR_PG_URL in the schema EXECUTOR_PG_SCHEMA, and a worker running the
 * process executor on bench/executor-agent.mjs (the example agent, wrapped to stamp the agent's
 * start and its SIGTERM into EXECUTOR_STAMPS). Polls and heartbeats are an hour apart, so only
 * notifications make it act. It tells the parent, over IPC, when it claimed each run and when it
 * called the executor's `execute` for it (both on the clock every process of the bench shares,
 * so the IPC hop is not timed), and each run that ends.
 */

export const EXECUTOR_PG_URL_ENV = 'EXECUTOR_PG_URL';
export const EXECUTOR_PG_SCHEMA_ENV = 'EXECUTOR_PG_SCHEMA';
export const EXECUTOR_STAMPS_ENV = 'EXECUTOR_STAMPS';
export const EXECUTOR_CONCURRENCY_ENV = 'EXECUTOR_CONCURRENCY';

export type ExecutorWorkerReport =
  | { kind: 'ready' }
  /** The worker claimed the run (its `run.state_changed` to CLAIMED); `at` on the shared clock. */
  | { kind: 'claimed'; runId: string; at: number }
  /** The run is INPROGRESS and the worker called `execute` (the agent is not spawned yet). */
  | { kind: 'executing'; runId: string; at: number }
  | { kind: 'ended'; runId: string; state: string };

/** The clock every process of the bench shares: wall-clock time with performance.now()'s resolution. */
export const sharedClock = () => performance.timeOrigin + performance.now();

const AGENT = fileURLToPath(new URL('./executor-agent.mjs', import.meta.url));

async function main(send: (report: ExecutorWorkerReport) => void): Promise<void> {
  const connectionString = process.env[EXECUTOR_PG_URL_ENV];
  const schema = process.env[EXECUTOR_PG_SCHEMA_ENV];
  const stamps = process.env[EXECUTOR_STAMPS_ENV];
  if (!connectionString || !schema || !stamps) {
    throw new Error(`${EXECUTOR_PG_URL_ENV}, ${EXECUTOR_PG_SCHEMA_ENV} and ${EXECUTOR_STAMPS_ENV} are required`);
  }
  const concurrency = Number(process.env[EXECUTOR_CONCURRENCY_ENV] ?? 1);
  const store = createPostgresStore({ connectionString, schema, poolSize: 4 });
  const processes = processExecutor({
    command: process.execPath,
    args: [AGENT],
    env: { set: { AGENTRUN_BENCH_STAMPS: stamps } },
    killGraceMs: 2000,
  });
  const executor: Executor = {
    execute(input, context) {
      send({ kind: 'executing', runId: input.run.run_id, at: sharedClock() });
      return processes.execute(input, context);
    },
  };
  const agentrun = createAgentRun({ store, executor });
  agentrun.events.on('run.state_changed', (e) => {
    if (e.to === 'CLAIMED') send({ kind: 'claimed', runId: e.run.run_id, at: sharedClock() });
    else if (['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'].includes(e.to)) send({ kind: 'ended', runId: e.run.run_id, state: e.to });
  });
  await runIdleWorker(agentrun, store, send, concurrency);
}

// Only when forked by the bench (with an IPC channel): importing this module for its constants
// and types must not start a worker in the importing process.
if (process.send) {
  const send = process.send.bind(process);
  await main((report) => send(report));
}
