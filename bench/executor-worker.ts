import { fileURLToPath } from 'node:url';
import { createAgentRun } from '@agentrun/core';
import { processExecutor } from '@agentrun/executor-process';
import { createPostgresStore } from '@agentrun/store-postgres';
import { runIdleWorker } from './idle-worker.js';

/**
 * A worker process of the `executor` bench (bench/executor.ts), forked with an IPC channel: a
 * PostgreSQL store on EXECUTOR_PG_URL in the schema EXECUTOR_PG_SCHEMA, and a worker running the
 * process executor on bench/executor-agent.mjs (the example agent, wrapped to stamp the agent's
 * start and its SIGTERM into EXECUTOR_STAMPS). Polls and heartbeats are an hour
 * apart, so only notifications make it act. It tells the parent, over IPC, each run it moves to
 * INPROGRESS and each run that ends; the parent times them on its clock.
 */

export const EXECUTOR_PG_URL_ENV = 'EXECUTOR_PG_URL';
export const EXECUTOR_PG_SCHEMA_ENV = 'EXECUTOR_PG_SCHEMA';
export const EXECUTOR_STAMPS_ENV = 'EXECUTOR_STAMPS';
export const EXECUTOR_CONCURRENCY_ENV = 'EXECUTOR_CONCURRENCY';

export type ExecutorWorkerReport =
  | { kind: 'ready' }
  | { kind: 'inprogress'; runId: string }
  | { kind: 'ended'; runId: string; state: string };

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
  const executor = processExecutor({
    command: process.execPath,
    args: [AGENT],
    env: { set: { AGENTRUN_BENCH_STAMPS: stamps } },
    killGraceMs: 2000,
  });
  const agentrun = createAgentRun({ store, executor });
  agentrun.events.on('run.state_changed', (e) => {
    if (e.to === 'INPROGRESS') send({ kind: 'inprogress', runId: e.run.run_id });
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
