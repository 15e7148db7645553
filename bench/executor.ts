import { type ChildProcess, fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AgentRun, createAgentRun, type Executor } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { createPostgresStore } from '@agentrun/store-postgres';
import { AgentStamps, groupGone } from './agent-stamps.js';
import { Reports } from './executor-reports.js';
import {
  EXECUTOR_CONCURRENCY_ENV,
  EXECUTOR_PG_SCHEMA_ENV,
  EXECUTOR_PG_URL_ENV,
  EXECUTOR_STAMPS_ENV,
  type ExecutorWorkerReport,
  sharedClock,
} from './executor-worker.js';
import { inScratchSchema } from './pg-admin.js';
import type { BenchGroup } from './run.js';

/**
 * The process executor on PostgreSQL (docs/executors.md, "Measured"): two forked worker processes
 * (bench/executor-worker.ts), idle, their polls and heartbeats an hour apart (so only
 * notifications make them act), each running the process executor at concurrency 2. This process
 * creates and cancels runs through a store of its own and serves their events; the agent is
 * bench/executor-agent.mjs. Every interval is read on the clock all the bench's processes share
 * (performance.timeOrigin + performance.now()), its end stamped where it happens, so no IPC hop
 * or file poll is in it except where said.
 *
 * - pickup (`pickup_*`): before the create call → the worker calls the executor's `execute` (the
 *   run is INPROGRESS; the agent is not spawned yet). One run at a time, so a slot is always free:
 *   this is the latency of a run arriving at an idle pool, with no queueing in it, which is what
 *   the target (p99 ≤ 100 ms) is about. Each sample runs to its end before the next create (a
 *   closed loop), so a stall delays one sample where a steady stream of arrivals would have met it
 *   with several (coordinated omission): `paced_pickup_*` below is the open-loop figure. The
 *   printed line also gives create → claimed, and create → the agent process's first instruction
 *   (`agent_start_*`: adds the workspace, the spawn and the agent's own Node start).
 * - cancel (`cancel_*`): before the cancel call → the run is CANCELLED (the call returned: the
 *   state is committed) and the agent's process group is gone (no process of it left, reaped by
 *   the worker; found by polling every millisecond). The printed line also gives cancel → the
 *   agent's SIGTERM handler runs (`cancel_term_*`).
 * - SSE lag (`sse_lag_*`): the agent writes lines carrying the time they were written, 20 ms
 *   apart (bench/executor-agent.mjs), as protocol status messages in one run (the executor writes
 *   each at once) and as plain output in the next (20 ms apart is more than one write per 50 ms,
 *   so it gathers those but a run's first: docs/executors.md "The JSON-lines protocol"),
 *   alternately; this process follows each run's events as Server-Sent Events through its own
 *   handler (woken by the workers' run.event notifications) and takes the difference on receipt.
 *   Both kinds count in `sse_lag_*`; the printed line gives each.
 * - paced pickup (`paced_pickup_*`): PACED_RUNS runs of an agent that exits at once, created on a
 *   fixed schedule, PACED_PER_S a second (an open loop: a create never waits for an earlier one),
 *   each timed from the moment the schedule gave it → `execute`, so a late create (this process
 *   stalled) counts too. The pool runs other runs meanwhile (their spawns, their writes), and a
 *   run that finds the 4 slots full waits, which counts too: the pickup a steady stream of runs
 *   meets, at about a quarter of the pool's capacity.
 * - no-op batch (`noop_*`): NOOP_RUNS runs of an agent that exits at once (the example agent),
 *   created back to back onto 2 processes × concurrency 2. Runs per second, from the first create
 *   to the last run's end; and create → `execute` per run (`noop_pickup_*`), which here is mostly
 *   the wait for a free slot (queueing: NOOP_RUNS runs on 4 slots), so it grows with the batch.
 *   The batch has one deadline (NOOP_RUN_BUDGET_MS per run), not one per run: on a busy 2-core
 *   machine the last runs end many seconds after the first.
 *
 * No reference implementation runs beside it: none spawns agents in processes. To see where time
 * goes, EXECUTOR_BENCH_CPU_PROF=<dir> makes the worker processes write CPU profiles there (node
 * --cpu-prof); run this process itself as `node --cpu-prof --conditions=agentrun-source --import
 * tsx bench/run.ts executor`.
 *
 * `DATABASE_URL`, else the local server the tests use. Without a server the group is skipped.
 */

const SAMPLES = 150;
const WARMUP = 10;
const NOOP_RUNS = 200;
const PACED_RUNS = 100;
const PACED_PER_S = 5;
/** SSE lag: runs of SSE_LINES lines each, until SSE_SAMPLES lines after SSE_WARMUP untimed ones. */
const SSE_LINES = 20;
const SSE_SAMPLES = 200;
const SSE_WARMUP = 10;
const WORKERS = 2;
const CONCURRENCY = 2;
/** One sample (one run) taking longer than this is a bug (no notification came, no signal): the bench fails. */
const SAMPLE_TIMEOUT_MS = 30_000;
/**
 * The no-op batch's deadline is NOOP_RUNS times this (the paced runs', PACED_RUNS times this after the last is due): at least 2 runs per second on the whole
 * pool, where a 2-core machine does 10 to 20 (busy or idle; docs/executors.md, "Measured").
 */
const NOOP_RUN_BUDGET_MS = 500;
const CPU_PROF_ENV = 'EXECUTOR_BENCH_CPU_PROF';

const WORKER = fileURLToPath(new URL('./executor-worker.ts', import.meta.url));
const principal = testPrincipal();

export const executorGroup: BenchGroup = {
  name: 'executor',
  description:
    'process executor on PostgreSQL, 2 idle worker processes: create → execute, cancel → agent group gone, agent line → SSE, no-op runs per second',
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
    await reports.allReady(WORKERS, performance.now() + SAMPLE_TIMEOUT_MS);

    const agents = new AgentStamps(stamps);
    const timed = await pickupAndCancel(agentrun, reports, agents).finally(() => agents.close());
    const sse = await sseLag(agentrun);
    const paced = await pacedPickup(agentrun, reports);
    const noop = await noopBatch(agentrun, reports);

    const ms = (xs: number[]) => `p50 ${p(xs, 0.5).toFixed(1)}, p99 ${p(xs, 0.99).toFixed(1)}, max ${Math.max(...xs).toFixed(1)} ms`;
    console.log(
      [
        `${SAMPLES} runs one at a time:`,
        `  create → claimed ${ms(timed.claimed)}`,
        `  create → execute (pickup) ${ms(timed.pickup)}`,
        `  create → agent started ${ms(timed.agentStart)}`,
        `  cancel → agent SIGTERM ${ms(timed.term)}`,
        `  cancel → CANCELLED and group gone (cancel) ${ms(timed.cancel)}`,
        `${sse.all.length} agent lines → SSE: ${ms(sse.all)}; status lines ${ms(sse.status)}; output lines ${ms(sse.output)}`,
        `${PACED_RUNS} no-op runs at ${PACED_PER_S}/s: due → execute (paced pickup) ${ms(paced)}`,
        `${NOOP_RUNS} no-op runs at once: ${noop.perSecond.toFixed(1)}/s; create → execute (with queueing) ${ms(noop.pickup)}`,
      ].join('\n'),
    );
    return {
      'executor.pickup_p50_ms': p(timed.pickup, 0.5),
      'executor.pickup_p99_ms': p(timed.pickup, 0.99),
      'executor.agent_start_p50_ms': p(timed.agentStart, 0.5),
      'executor.agent_start_p99_ms': p(timed.agentStart, 0.99),
      'executor.cancel_p50_ms': p(timed.cancel, 0.5),
      'executor.cancel_p99_ms': p(timed.cancel, 0.99),
      'executor.cancel_term_p50_ms': p(timed.term, 0.5),
      'executor.cancel_term_p99_ms': p(timed.term, 0.99),
      'executor.sse_lag_p50_ms': p(sse.all, 0.5),
      'executor.sse_lag_p99_ms': p(sse.all, 0.99),
      'executor.paced_pickup_p50_ms': p(paced, 0.5),
      'executor.paced_pickup_p99_ms': p(paced, 0.99),
      'executor.noop_runs_per_s': noop.perSecond,
      'executor.noop_pickup_p50_ms': p(noop.pickup, 0.5),
      'executor.noop_pickup_p99_ms': p(noop.pickup, 0.99),
    };
  } finally {
    await Promise.all(children.map(stopWorker));
    await store.close();
  }
}

/** Runs one at a time: each created, timed to its execution, then cancelled and timed to its end. */
async function pickupAndCancel(agentrun: AgentRun, reports: Reports, stamps: AgentStamps) {
  const timed = {
    claimed: [] as number[],
    pickup: [] as number[],
    agentStart: [] as number[],
    term: [] as number[],
    cancel: [] as number[],
  };
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const deadline = performance.now() + SAMPLE_TIMEOUT_MS;
    const created = sharedClock();
    const runId = (await agentrun.services.runs.create(principal, { prompt: `executor bench ${i}, bench: wait` })).body.run_id;
    const claimed = await reports.next('claimed', runId, deadline);
    const executing = await reports.next('executing', runId, deadline);
    const agent = await stamps.started(runId, deadline);
    const cancelled = sharedClock();
    await agentrun.services.runs.cancel(principal, runId);
    const [term, gone] = await Promise.all([stamps.terminated(runId, deadline), groupGone(agent.pid, deadline)]);
    if (i < WARMUP) continue;
    timed.claimed.push(claimed.at - created);
    timed.pickup.push(executing.at - created);
    timed.agentStart.push(agent.at - created);
    timed.term.push(term - cancelled);
    timed.cancel.push(gone - cancelled);
  }
  return timed;
}

type LineKind = 'status' | 'output';

/** Runs of SSE_LINES lines each, followed live, until SSE_SAMPLES lines were timed after SSE_WARMUP. */
async function sseLag(agentrun: AgentRun) {
  const lines: { kind: LineKind; lag: number }[] = [];
  for (let i = 0; lines.length < SSE_SAMPLES + SSE_WARMUP; i++) {
    const kind: LineKind = i % 2 === 0 ? 'status' : 'output';
    const prompt = `executor bench ${i}, bench: ${kind} ${SSE_LINES}`;
    const runId = (await agentrun.services.runs.create(principal, { prompt })).body.run_id;
    lines.push(...(await followLag(agentrun.fetch, runId)).map((lag) => ({ kind, lag })));
  }
  const timed = lines.slice(SSE_WARMUP);
  return {
    all: timed.map((l) => l.lag),
    status: timed.filter((l) => l.kind === 'status').map((l) => l.lag),
    output: timed.filter((l) => l.kind === 'output').map((l) => l.lag),
  };
}

/** PACED_RUNS no-op runs created on schedule, whatever came of the earlier ones: each run's due time → `execute`. */
async function pacedPickup(agentrun: AgentRun, reports: Reports): Promise<number[]> {
  const periodMs = 1000 / PACED_PER_S;
  const local = performance.now();
  const shared = sharedClock();
  const deadline = local + PACED_RUNS * (periodMs + NOOP_RUN_BUDGET_MS);
  const made: Promise<{ runId: string; due: number }>[] = [];
  for (let i = 0; i < PACED_RUNS; i++) {
    const wait = local + i * periodMs - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const due = shared + i * periodMs;
    made.push(
      agentrun.services.runs.create(principal, { prompt: `executor bench paced ${i}` }).then((r) => ({ runId: r.body.run_id, due })),
    );
  }
  const runs = await Promise.all(made);
  const [executing, ended] = await Promise.all([
    Promise.all(runs.map(({ runId }) => reports.next('executing', runId, deadline))),
    Promise.all(runs.map(({ runId }) => reports.next('ended', runId, deadline))),
  ]);
  const failed = ended.filter((e) => e.state !== 'SUCCEEDED');
  if (failed.length > 0) throw new Error(`${failed.length} paced runs did not succeed (e.g. ${failed[0]?.runId}: ${failed[0]?.state})`);
  return executing.map((e, i) => e.at - (runs[i]?.due as number));
}

/** NOOP_RUNS runs created back to back; waits for them all against one deadline for the batch. */
async function noopBatch(agentrun: AgentRun, reports: Reports) {
  const deadline = performance.now() + NOOP_RUNS * NOOP_RUN_BUDGET_MS;
  const created = new Map<string, number>();
  const started = performance.now();
  for (let i = 0; i < NOOP_RUNS; i++) {
    const at = sharedClock();
    created.set((await agentrun.services.runs.create(principal, { prompt: `executor bench no-op ${i}` })).body.run_id, at);
  }
  const ids = [...created.keys()];
  const [executing, ended] = await Promise.all([
    Promise.all(ids.map((id) => reports.next('executing', id, deadline))),
    Promise.all(ids.map((id) => reports.next('ended', id, deadline))),
  ]);
  const perSecond = NOOP_RUNS / ((performance.now() - started) / 1000);
  const failed = ended.filter((e) => e.state !== 'SUCCEEDED');
  if (failed.length > 0) throw new Error(`${failed.length} no-op runs did not succeed (e.g. ${failed[0]?.runId}: ${failed[0]?.state})`);
  return { perSecond, pickup: executing.map((e) => e.at - (created.get(e.runId) as number)) };
}

function p(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
}

/**
 * Follow a run's events as Server-Sent Events (docs/run-api.md, "Following a run live") through
 * this process's handler until the stream ends (the run finished): for each of the agent's
 * `lag <time>` lines (a status event or an output event), how long after it was written the
 * stream delivered it. A stream still open SAMPLE_TIMEOUT_MS after it began fails the bench.
 */
async function followLag(fetch: (request: Request) => Promise<Response>, runId: string): Promise<number[]> {
  const timeout = AbortSignal.timeout(SAMPLE_TIMEOUT_MS);
  const response = await fetch(
    new Request(`http://bench.local/api/v1/agent/runs/${runId}/events`, { headers: { accept: 'text/event-stream' }, signal: timeout }),
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
      const event = JSON.parse(line.slice('data: '.length)) as { type: string; data: { message?: string; text?: string } };
      const kind = event.type === 'status' || event.type === 'output' ? event.type : undefined;
      const written = kind && /^lag (\d+(?:\.\d+)?)$/.exec((kind === 'status' ? event.data.message : event.data.text) ?? '');
      if (kind && written) lags.push(receivedAt - Number(written[1]));
    }
  }
  if (timeout.aborted) throw new Error(`the stream of ${runId} was still open after ${SAMPLE_TIMEOUT_MS} ms`);
  if (lags.length !== SSE_LINES) throw new Error(`the stream of ${runId} carried ${lags.length} of the agent's ${SSE_LINES} lines`);
  return lags;
}

function startWorker(url: string, schema: string, stamps: string, reports: Reports): ChildProcess {
  const profiles = process.env[CPU_PROF_ENV];
  const child = fork(WORKER, [], {
    execArgv: ['--conditions=agentrun-source', '--import', 'tsx', ...(profiles ? ['--cpu-prof', `--cpu-prof-dir=${profiles}`] : [])],
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
