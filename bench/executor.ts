import { type ChildProcess, fork } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAgentRun, type Executor } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { createPostgresStore } from '@agentrun/store-postgres';
import {
  EXECUTOR_CONCURRENCY_ENV,
  EXECUTOR_PG_SCHEMA_ENV,
  EXECUTOR_PG_URL_ENV,
  EXECUTOR_STAMPS_ENV,
  type ExecutorWorkerReport,
} from './executor-worker.js';
import { inScratchSchema } from './pg-admin.js';
import type { BenchGroup } from './run.js';

/**
 * The process executor on PostgreSQL (docs/executors.md, "Measured"): two forked worker processes
 * (bench/executor-worker.ts), idle, their polls and heartbeats an hour apart, each running
 * the process executor. This process creates and cancels
 * runs through a store of its own; the agent is bench/executor-agent.mjs, which waits for the
 * cancel (timed runs) or runs the example agent (no-op runs).
 * - pickup: before the create call → the worker's report (IPC) that the run is INPROGRESS, on this
 *   process's clock (so it includes the IPC hop);
 * - cancel: before the cancel call → the agent process's SIGTERM handler, both read on the clock
 *   every process shares (performance.timeOrigin + performance.now()), the agent's side from its
 *   stamp file;
 * - SSE lag: the agent writes status lines carrying the time they were written (shared clock);
 *   this process follows the run's events as Server-Sent Events through its own handler (woken by
 *   the workers' run.event notifications) and takes the difference on receipt;
 * - noop runs/s: NOOP_RUNS runs of an agent that exits at once, created together, on 2 processes
 *   × concurrency 2, from the first create to the last run's end (the workers' reports).
 *
 * `DATABASE_URL`, else the local server the tests use. Without a server the group is skipped.
 */

const SAMPLES = 150;
const WARMUP = 10;
const NOOP_RUNS = 200;
/** SSE lag: runs of SSE_LINES status lines each, until SSE_SAMPLES lines after SSE_WARMUP untimed ones. */
const SSE_LINES = 20;
const SSE_SAMPLES = 200;
const SSE_WARMUP = 10;
const WORKERS = 2;
const CONCURRENCY = 2;
/** A sample that takes longer than this is a bug (no notification came, no signal): the bench fails. */
const SAMPLE_TIMEOUT_MS = 30_000;

const WORKER = fileURLToPath(new URL('./executor-worker.ts', import.meta.url));
const principal = testPrincipal();
const sharedClock = () => performance.timeOrigin + performance.now();

export const executorGroup: BenchGroup = {
  name: 'executor',
  description:
    'process executor on PostgreSQL, 2 idle worker processes: create → INPROGRESS, cancel → agent SIGTERM, agent line → SSE, no-op runs per second',
  async run() {
    const stamps = await mkdtemp(join(tmpdir(), 'agentrun-bench-stamps-'));
    try {
      return await inScratchSchema('bench_executor', (baseUrl, schema) => measure(baseUrl, schema, stamps));
    } finally {
      await rm(stamps, { recursive: true, force: true });
    }
  },
};

async function measure(url: string, schema: string, stamps: string): Promise<Record<string, number>> {
  // It listens: the events stream it serves is woken by run.event notifications of the workers' writes.
  const store = createPostgresStore({ connectionString: url, schema, poolSize: 4 });
  const children: ChildProcess[] = [];
  try {
    await store.migrate();
    const noExecutor: Executor = { execute: () => Promise.reject(new Error('this process runs no worker')) };
    const agentrun = createAgentRun({ store, executor: noExecutor, authenticate: () => principal });
    const reports = new Reports();
    for (let i = 0; i < WORKERS; i++) children.push(startWorker(url, schema, stamps, reports));
    await Promise.all(children.map((_, i) => reports.next('ready', `ready-${i}`)));

    const pickup: number[] = [];
    const cancel: number[] = [];
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      const created = performance.now();
      const runId = (await agentrun.services.runs.create(principal, { prompt: `executor bench ${i}, bench: wait` })).body.run_id;
      const inProgressAt = await reports.next('inprogress', runId);
      await readStamp(stamps, runId, 'start');
      const cancelled = sharedClock();
      await agentrun.services.runs.cancel(principal, runId);
      const signalled = await readStamp(stamps, runId, 'term');
      if (i < WARMUP) continue;
      pickup.push(inProgressAt - created);
      cancel.push(signalled - cancelled);
    }

    const sseLag: number[] = [];
    for (let i = 0; sseLag.length < SSE_SAMPLES + SSE_WARMUP; i++) {
      const runId = (await agentrun.services.runs.create(principal, { prompt: `executor bench ${i}, bench: lines ${SSE_LINES}` })).body
        .run_id;
      sseLag.push(...(await followLag(agentrun.fetch, runId)));
    }
    sseLag.splice(0, SSE_WARMUP);

    const ids: string[] = [];
    const started = performance.now();
    for (let i = 0; i < NOOP_RUNS; i++) {
      ids.push((await agentrun.services.runs.create(principal, { prompt: `executor bench no-op ${i}` })).body.run_id);
    }
    await Promise.all(ids.map((id) => reports.next('ended', id)));
    const noopPerSecond = NOOP_RUNS / ((performance.now() - started) / 1000);
    const failed = ids.filter((id) => reports.state(id) !== 'SUCCEEDED');
    if (failed.length > 0)
      throw new Error(`${failed.length} no-op runs did not succeed (e.g. ${failed[0]}: ${reports.state(failed[0] as string)})`);

    console.log(
      `${SAMPLES} samples: pickup p50 ${p(pickup, 0.5).toFixed(2)} ms, p99 ${p(pickup, 0.99).toFixed(2)} ms, max ${Math.max(...pickup).toFixed(2)} ms; ` +
        `cancel → SIGTERM p50 ${p(cancel, 0.5).toFixed(2)} ms, p99 ${p(cancel, 0.99).toFixed(2)} ms, max ${Math.max(...cancel).toFixed(2)} ms; ` +
        `SSE lag p50 ${p(sseLag, 0.5).toFixed(2)} ms, p99 ${p(sseLag, 0.99).toFixed(2)} ms, max ${Math.max(...sseLag).toFixed(2)} ms (${sseLag.length} lines); ` +
        `${NOOP_RUNS} no-op runs at ${noopPerSecond.toFixed(1)}/s`,
    );
    return {
      'executor.pickup_p50_ms': p(pickup, 0.5),
      'executor.pickup_p99_ms': p(pickup, 0.99),
      'executor.cancel_p50_ms': p(cancel, 0.5),
      'executor.cancel_p99_ms': p(cancel, 0.99),
      'executor.sse_lag_p50_ms': p(sseLag, 0.5),
      'executor.sse_lag_p99_ms': p(sseLag, 0.99),
      'executor.noop_runs_per_s': noopPerSecond,
    };
  } finally {
    await Promise.all(children.map(stopWorker));
    await store.close();
  }
}

function p(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
}

/** The workers' reports by kind and run, with their arrival time on this process's clock. */
class Reports {
  private readonly arrived = new Map<string, number>();
  private readonly waiting = new Map<string, (at: number) => void>();
  private readonly states = new Map<string, string>();
  private readyCount = 0;

  take(report: ExecutorWorkerReport): void {
    const at = performance.now();
    const key = report.kind === 'ready' ? `ready:ready-${this.readyCount++}` : `${report.kind}:${report.runId}`;
    if (report.kind === 'ended') this.states.set(report.runId, report.state);
    const waiter = this.waiting.get(key);
    if (waiter) {
      this.waiting.delete(key);
      waiter(at);
    } else this.arrived.set(key, at);
  }

  /** When the report of `kind` about `id` arrived (or arrives). */
  next(kind: ExecutorWorkerReport['kind'], id: string): Promise<number> {
    const key = `${kind}:${id}`;
    const at = this.arrived.get(key);
    if (at !== undefined) {
      this.arrived.delete(key);
      return Promise.resolve(at);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${kind} report for ${id} within ${SAMPLE_TIMEOUT_MS} ms`)), SAMPLE_TIMEOUT_MS);
      this.waiting.set(key, (arrival) => {
        clearTimeout(timer);
        resolve(arrival);
      });
    });
  }

  state(runId: string): string | undefined {
    return this.states.get(runId);
  }
}

/**
 * Follow a run's events as Server-Sent Events (docs/run-api.md, "Following a run live") through
 * this process's handler until the stream ends (the run finished): for each of the agent's
 * `lag <time>` status lines, how long after it was written the stream delivered it.
 */
async function followLag(fetch: (request: Request) => Promise<Response>, runId: string): Promise<number[]> {
  const response = await fetch(
    new Request(`http://bench.local/api/v1/agent/runs/${runId}/events`, { headers: { accept: 'text/event-stream' } }),
  );
  if (response.status !== 200 || !response.body) throw new Error(`the events stream answered ${response.status}: ${await response.text()}`);
  const lags: number[] = [];
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    const receivedAt = sharedClock();
    buffered += decoder.decode(chunk, { stream: true });
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('data: ')) continue;
      const event = JSON.parse(line.slice('data: '.length)) as { type: string; data: { message?: string } };
      const written = event.type === 'status' ? /^lag (\d+(?:\.\d+)?)$/.exec(event.data.message ?? '') : null;
      if (written) lags.push(receivedAt - Number(written[1]));
    }
  }
  if (lags.length !== SSE_LINES) throw new Error(`the stream of ${runId} carried ${lags.length} of the agent's ${SSE_LINES} lines`);
  return lags;
}

/** The time in an agent's stamp file (bench/executor-agent.mjs), once it is there. */
async function readStamp(dir: string, runId: string, kind: 'start' | 'term'): Promise<number> {
  const deadline = performance.now() + SAMPLE_TIMEOUT_MS;
  while (performance.now() < deadline) {
    const text = await readFile(join(dir, `${runId}.${kind}`), 'utf8').catch(() => undefined);
    if (text) return Number(text);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`no ${kind} stamp from the agent of ${runId} within ${SAMPLE_TIMEOUT_MS} ms`);
}

function startWorker(url: string, schema: string, stamps: string, reports: Reports): ChildProcess {
  const child = fork(WORKER, [], {
    execArgv: ['--conditions=agentrun-source', '--import', 'tsx'],
    env: {
      ...process.env,
      [EXECUTOR_PG_URL_ENV]: url,
      [EXECUTOR_PG_SCHEMA_ENV]: schema,
      [EXECUTOR_STAMPS_ENV]: stamps,
      [EXECUTOR_CONCURRENCY_ENV]: String(CONCURRENCY),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.on('message', (message) => reports.take(message as ExecutorWorkerReport));
  child.once('exit', (code, signal) => {
    if (code !== 0) console.error(`an executor worker process exited (code ${code}, signal ${signal})`);
  });
  return child;
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.send('stop');
  await exited;
}
