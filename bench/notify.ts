import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createAgentRun, type Executor } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { createPostgresStore } from '@agentrun/store-postgres';
import { PG_SCHEMA_ENV, PG_URL_ENV, type WorkerReport } from './notify-worker.js';
import { inScratchSchema } from './pg-admin.js';
import type { BenchGroup } from './run.js';

/**
 * How soon a worker in another process hears of a new run and of a cancel through the PostgreSQL
 * store's notifications (LISTEN/NOTIFY; docs/stores.md, "Notifications"). The worker
 * (bench/notify-worker.ts) is forked, idle, its polls and heartbeats an hour apart, so only a
 * notification can make it act. This process creates each run and, once its execution started,
 * cancels it, through a store of its own; the child reports over IPC when it claimed the run and
 * when the execution's signal aborted. Both intervals are timed on this process's clock, from
 * before the create (or cancel) call to the IPC message's arrival: they include the write's own
 * commit and the IPC hop, so they bound the notification's latency from above.
 *
 * `DATABASE_URL`, else the local server the tests use. Without a server the group is skipped.
 */

/** Timed samples (after WARMUP untimed ones); target p99 ≤ 100 ms each (docs/stores.md). */
const SAMPLES = 200;
const WARMUP = 10;
/** A sample that takes longer than this is a bug (no notification came): the bench fails. */
const SAMPLE_TIMEOUT_MS = 30_000;

const WORKER = fileURLToPath(new URL('./notify-worker.ts', import.meta.url));
const principal = testPrincipal();

export const notifyGroup: BenchGroup = {
  name: 'notify',
  description:
    'PostgreSQL notifications: create → claimed and cancel → aborted in a worker process whose poll and heartbeat are an hour apart',
  run: () => inScratchSchema('bench_notify', measure),
};

async function measure(url: string, schema: string): Promise<Record<string, number>> {
  // This side needs no listener: it only writes.
  const store = createPostgresStore({ connectionString: url, schema, poolSize: 2, listen: false });
  let child: ChildProcess | undefined;
  try {
    await store.migrate();
    const noExecutor: Executor = {
      execute: () => Promise.reject(new Error('this process runs no worker')),
    };
    const agentrun = createAgentRun({ store, executor: noExecutor });
    const worker = await startWorker(url, schema);
    child = worker.child;

    const pickup: number[] = [];
    const cancelSeen: number[] = [];
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      const created = performance.now();
      const claimed = worker.next('claimed');
      const started = worker.next('started');
      const runId = (await agentrun.services.runs.create(principal, { prompt: `notify bench ${i}` })).body.run_id;
      const claim = await claimed;
      const claimedAt = performance.now();
      if (claim.runId !== runId) throw new Error(`the worker claimed ${claim.runId}, not the run just created (${runId})`);
      await started;
      const aborted = worker.next('aborted');
      const cancelled = performance.now();
      await agentrun.services.runs.cancel(principal, runId);
      const abort = await aborted;
      const abortedAt = performance.now();
      if (abort.runId !== runId) throw new Error(`the worker aborted ${abort.runId}, not ${runId}`);
      if (i < WARMUP) continue;
      pickup.push(claimedAt - created);
      cancelSeen.push(abortedAt - cancelled);
    }
    const p = (xs: number[], q: number) => {
      const sorted = [...xs].sort((a, b) => a - b);
      return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
    };
    console.log(
      `${SAMPLES} samples: pickup p50 ${p(pickup, 0.5).toFixed(2)} ms, p99 ${p(pickup, 0.99).toFixed(2)} ms, max ${Math.max(...pickup).toFixed(2)} ms; ` +
        `cancel seen p50 ${p(cancelSeen, 0.5).toFixed(2)} ms, p99 ${p(cancelSeen, 0.99).toFixed(2)} ms, max ${Math.max(...cancelSeen).toFixed(2)} ms`,
    );
    return {
      'notify.pickup_p50_ms': p(pickup, 0.5),
      'notify.pickup_p99_ms': p(pickup, 0.99),
      'notify.cancel_seen_p50_ms': p(cancelSeen, 0.5),
      'notify.cancel_seen_p99_ms': p(cancelSeen, 0.99),
    };
  } finally {
    if (child) await stopWorker(child);
    await store.close();
  }
}

type Kind = WorkerReport['kind'];
type Report<K extends Kind> = Extract<WorkerReport, { kind: K }>;

/** Fork the worker process; resolves once it listens, with a way to await its next report of a kind. */
async function startWorker(url: string, schema: string) {
  const child = fork(WORKER, [], {
    execArgv: ['--conditions=agentrun-source', '--import', 'tsx'],
    env: { ...process.env, [PG_URL_ENV]: url, [PG_SCHEMA_ENV]: schema },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<Kind, (report: WorkerReport) => void>();
  const early = new Map<Kind, WorkerReport[]>();
  child.on('message', (message) => {
    const report = message as WorkerReport;
    const take = waiting.get(report.kind);
    if (take) {
      waiting.delete(report.kind);
      take(report);
    } else early.set(report.kind, [...(early.get(report.kind) ?? []), report]);
  });
  let exited: (error: Error) => void = () => {};
  child.once('exit', (code) => exited(new Error(`the worker process exited (${code})`)));
  const next = <K extends Kind>(kind: K): Promise<Report<K>> => {
    const queued = early.get(kind)?.shift();
    if (queued) return Promise.resolve(queued as Report<K>);
    return new Promise<Report<K>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${kind} report within ${SAMPLE_TIMEOUT_MS} ms`)), SAMPLE_TIMEOUT_MS);
      exited = reject;
      waiting.set(kind, (report) => {
        clearTimeout(timer);
        resolve(report as Report<K>);
      });
    });
  };
  await next('ready');
  return { child, next };
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.send('stop');
  await exited;
}
