import { createAgentRun, type Executor } from '@agentrun/core';
import { createPostgresStore } from '@agentrun/store-postgres';
import { runIdleWorker } from './idle-worker.js';

/**
 * The worker process of the `notify` bench (bench/notify.ts), forked with an IPC channel: a
 * PostgreSQL store on NOTIFY_PG_URL in the schema NOTIFY_PG_SCHEMA, and a worker whose polls and
 * heartbeats are an hour apart, so only notifications can make it act within the bench. It tells
 * the parent, over IPC, each run it claims (the worker's `run.state_changed` to CLAIMED), each
 * execution it starts, and each execution whose signal aborts; the parent times them on its clock.
 */

export const PG_URL_ENV = 'NOTIFY_PG_URL';
export const PG_SCHEMA_ENV = 'NOTIFY_PG_SCHEMA';

export type WorkerReport =
  | { kind: 'ready' }
  | { kind: 'claimed'; runId: string }
  | { kind: 'started'; runId: string }
  | { kind: 'aborted'; runId: string };

async function main(send: (report: WorkerReport) => void): Promise<void> {
  const connectionString = process.env[PG_URL_ENV];
  const schema = process.env[PG_SCHEMA_ENV];
  if (!connectionString || !schema) throw new Error(`${PG_URL_ENV} and ${PG_SCHEMA_ENV} are required`);
  const store = createPostgresStore({ connectionString, schema, poolSize: 4 });
  const executor: Executor = {
    execute(input, ctx) {
      const runId = input.run.run_id;
      send({ kind: 'started', runId });
      return new Promise((_, reject) => {
        ctx.signal.addEventListener('abort', () => {
          send({ kind: 'aborted', runId });
          reject(ctx.signal.reason);
        });
      });
    },
  };
  const agentrun = createAgentRun({ store, executor });
  agentrun.events.on('run.state_changed', (e) => {
    if (e.to === 'CLAIMED') send({ kind: 'claimed', runId: e.run.run_id });
  });
  await runIdleWorker(agentrun, store, send, 1);
}

// Only when forked by the bench (with an IPC channel): importing this module for its constants
// and types must not start a worker in the importing process.
if (process.send) {
  const send = process.send.bind(process);
  await main((report) => send(report));
}
