/**
 * A bare worker process for multi-process tests: a Postgres store on DATABASE_URL in the schema
 * AGENTRUN_DB_SCHEMA (as the reference server reads them), a handler and
 * `createWorker` with an executor that writes each execution it starts into `test_executions`
 * (see execution-log.ts), works for AGENTRUN_TEST_EXECUTE_MS and succeeds.
 *
 * Env: DATABASE_URL and AGENTRUN_DB_SCHEMA (required), AGENTRUN_WORKER_ID, AGENTRUN_WORKER_CONCURRENCY,
 * AGENTRUN_POLL_INTERVAL_MS, AGENTRUN_HEARTBEAT_MS, AGENTRUN_POOL_SIZE, AGENTRUN_TEST_EXECUTE_MS, and
 * AGENTRUN_WAIT_FOR_GO=1 to hold off claiming until a line `go` arrives on stdin (so several
 * processes start competing at the same moment). Prints `worker ready <id>` once it can work;
 * stops cleanly (running runs handed back to the queue) on SIGTERM or SIGINT.
 */
import { createAgentRunHandler, type Executor } from '@agentrun/core';
import { createPostgresStore } from '../../src/index.js';
import { recordExecution } from './execution-log.js';

const env = (name: string, fallback?: number): number | undefined => {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number, got ${JSON.stringify(value)}`);
  return n;
};

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL is required');
const schema = process.env.AGENTRUN_DB_SCHEMA;
if (!schema) throw new Error('AGENTRUN_DB_SCHEMA is required');
const workerId = process.env.AGENTRUN_WORKER_ID || `worker-${process.pid}`;
const executeMs = env('AGENTRUN_TEST_EXECUTE_MS', 1) as number;
const heartbeatMs = env('AGENTRUN_HEARTBEAT_MS');

// A small pool: several of these processes, and other test files, share one server's
// max_connections (100 by default); queries beyond the pool wait their turn.
const store = createPostgresStore({ connectionString: databaseUrl, schema, poolSize: env('AGENTRUN_POOL_SIZE', 4) as number });
await store.db.selectNoFrom((eb) => eb.lit(1).as('one')).execute(); // fail now, not at the first claim
const handler = createAgentRunHandler({ store });

const executor: Executor = {
  async execute(input, ctx) {
    const entry = { runId: input.run.run_id, workerId, attempt: input.attempt };
    await recordExecution(store.db, schema, { ...entry, event: 'started' });
    try {
      await sleep(executeMs, ctx.signal);
    } catch (error) {
      await recordExecution(store.db, schema, { ...entry, event: 'aborted' });
      throw error;
    }
    await recordExecution(store.db, schema, { ...entry, event: 'finished' });
    return { status: 'succeeded', message: `done by ${workerId}` };
  },
};

const worker = handler.app.worker({
  executor,
  workerId,
  concurrency: env('AGENTRUN_WORKER_CONCURRENCY', 4) as number,
  pollIntervalMs: env('AGENTRUN_POLL_INTERVAL_MS', 50) as number,
  ...(heartbeatMs !== undefined ? { heartbeatMs } : {}),
  onError: (error) => console.error(`[${workerId}] worker error`, error),
});

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void worker
      .stop()
      .then(() => store.close())
      .then(
        () => process.exit(0),
        (error) => {
          console.error(`[${workerId}] failed to stop`, error);
          process.exit(1);
        },
      );
  });
}

if (process.env.AGENTRUN_WAIT_FOR_GO === '1') {
  console.log(`worker ready ${workerId}`);
  await waitForGo();
  if (!stopping) worker.start();
} else {
  worker.start();
  console.log(`worker ready ${workerId}`);
}

function waitForGo(): Promise<void> {
  // The parent watchdog unrefs stdin; while we wait on it, it is what keeps us alive.
  process.stdin.ref();
  return new Promise((resolve) => {
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString();
      if (!buffered.split('\n').includes('go')) return;
      process.stdin.off('data', onData);
      process.stdin.unref();
      resolve();
    };
    process.stdin.on('data', onData);
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
