import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgentRun, type Executor, type RunState } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { CONTAINER_DEFAULTS, type ContainerExecutor, containerExecutor } from '@agentrun/executor-container';
import { processExecutor } from '@agentrun/executor-process';
import { createPostgresStore } from '@agentrun/store-postgres';
import { busyboxImage, type Podman, podmanUnavailable, startPodman } from '../packages/executor-container/test/support/podman.js';
import { inScratchSchema } from './pg-admin.js';
import type { BenchGroup } from './run.js';

/**
 * The container executor beside the engine's own ways of running the same container
 * (docs/executors.md, "The container executor"), in one run, the five sides alternating sample by
 * sample (A, B, C, D, E, A, B, …: the machine is shared, so a burst of load falls on every side):
 *
 * - `process`: the process executor running `/bin/sh -c 'echo done'`, through agentrun on
 *   PostgreSQL;
 * - `container`: the container executor running that command in the busybox image of the tests
 *   (packages/executor-container/test/support/podman.ts) with the default limits (network none,
 *   CONTAINER_DEFAULTS' memory, CPUs and pids), through agentrun on the same store;
 * - `cli`: `podman run --rm` of that image and command with the same limits, spawned directly
 *   (the same storage and containers.conf as the service the executor talks to);
 * - `api`: the Engine API alone, through the executor's own client, the calls the executor makes
 *   for a run: create, attach, start, the exit (the container's inspect once the attached stream
 *   ended), remove; without agentrun's workspace, store and transcript;
 * - `apiWait`: the same with the exit from `wait`, as a plain client of the API reads it (on
 *   Podman it answers only once its cleanup process ran: docs/executors.md, "Docker and Podman").
 *
 * Both executors run under one worker in this process (in-process, not forked as bench/executor.ts
 * does: the figures compared here are whole runs of hundreds of milliseconds, where an IPC hop or
 * a second process's Node would not show), at concurrency 1, its polls an hour apart (only the
 * store's notifications make it act); one executor or the other takes a run by its prompt.
 * Timed on performance.now(): a run from before the create call to `execute` called (pickup) and
 * to the worker's `run.state_changed` to SUCCEEDED (the state is committed); `cli` from the spawn
 * to the exit of `podman run`; `api` from before the create call to the remove's answer.
 * `executor.container_overhead` is the container executor's wall p50 over the `api` side's − 1:
 * what agentrun adds to the engine calls it makes. `container_overhead_own` takes the process
 * executor's wall p50 off first (agentrun's run lifecycle on the store, which any executor pays):
 * what the container executor itself adds. `container_overhead_cli`, over `podman run`'s;
 * `container_overhead_wait`, over `apiWait`'s.
 *
 * Needs Podman (scripts/podman-setup.sh) and PostgreSQL (`DATABASE_URL`, else the tests' local
 * server): without either the group is skipped.
 */

const SAMPLES = 40;
const WARMUP = 3;
const SAMPLE_TIMEOUT_MS = 60_000;
const AGENT = ['/bin/sh', '-c', 'echo done'];
const HOUR = 60 * 60 * 1000;
const ENDED: readonly RunState[] = ['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'];

type Side = 'process' | 'container' | 'cli' | 'api' | 'apiWait';
const SIDES: readonly Side[] = ['process', 'container', 'cli', 'api', 'apiWait'];
const principal = testPrincipal();

export const executorContainerGroup: BenchGroup = {
  name: 'executor-container',
  partOf: 'executor',
  description: `container executor vs process executor vs podman run vs the Engine API alone, '${AGENT.join(' ')}', ${SAMPLES} samples each, interleaved`,
  async run() {
    const missing = podmanUnavailable();
    if (missing) {
      console.log(`skipped: ${missing}`);
      return {};
    }
    const podman = await startPodman();
    const root = await mkdtemp(join(tmpdir(), 'agentrun-bench-container-'));
    try {
      return await inScratchSchema('bench_executor_container', (url, schema) => measure(url, schema, podman, root));
    } finally {
      await podman.stop();
      await rm(root, { recursive: true, force: true });
    }
  },
};

interface Sample {
  pickup?: number;
  wall: number;
}

async function measure(url: string, schema: string, podman: Podman, root: string): Promise<Record<string, number>> {
  const image = busyboxImage(podman);
  const store = createPostgresStore({ connectionString: url, schema, poolSize: 4 });
  const container = containerExecutor({ engine: podman.engine, image, command: AGENT, workspaceRoot: root, host: 'agentrun-bench' });
  const processes = processExecutor({ command: AGENT[0] as string, args: AGENT.slice(1) });
  const executing = new Map<string, number>();
  const ended = new Map<string, (state: { state: RunState; at: number }) => void>();
  const executor: Executor = {
    execute(input, context) {
      executing.set(input.run.run_id, performance.now());
      return (input.run.prompt.startsWith('container') ? container : processes).execute(input, context);
    },
  };
  const agentrun = createAgentRun({ store, executor, authenticate: () => principal });
  agentrun.events.on('run.state_changed', (e) => {
    if (ENDED.includes(e.to)) ended.get(e.run.run_id)?.({ state: e.to, at: performance.now() });
  });
  const worker = agentrun.worker({ pollIntervalMs: HOUR, heartbeatMs: HOUR, leaseMs: 2 * HOUR, concurrency: 1 });
  try {
    await store.migrate();
    worker.start();
    await worker.idle();
    // The worker's listener shares the store's one listening connection: once this resolves, it listens.
    await store.notifications?.listen(() => {});

    const viaAgentrun = async (kind: 'process' | 'container', i: number): Promise<Sample> => {
      let settle: (state: { state: RunState; at: number }) => void = () => {};
      const end = new Promise<{ state: RunState; at: number }>((resolve) => {
        settle = resolve;
      });
      const created = performance.now();
      const runId = (await agentrun.services.runs.create(principal, { prompt: `${kind} bench ${i}` })).body.run_id;
      ended.set(runId, settle);
      // The end may have come before the create call returned.
      const now = (await agentrun.services.runs.get(principal, runId)).state;
      const { state, at } = await withTimeout(
        ENDED.includes(now) ? Promise.resolve({ state: now, at: performance.now() }) : end,
        `run ${runId} (${kind}) to end`,
      );
      ended.delete(runId);
      if (state !== 'SUCCEEDED') throw new Error(`the ${kind} run ${runId} ended ${state}`);
      const pickup = executing.get(runId);
      executing.delete(runId);
      return { pickup: pickup === undefined ? undefined : pickup - created, wall: at - created };
    };
    const take: Record<Side, (i: number) => Promise<Sample>> = {
      process: (i) => viaAgentrun('process', i),
      container: (i) => viaAgentrun('container', i),
      cli: () => podmanRun(podman, image),
      api: () => apiRun(container, image, root, 'inspect'),
      apiWait: () => apiRun(container, image, root, 'wait'),
    };

    const samples: Record<Side, Sample[]> = { process: [], container: [], cli: [], api: [], apiWait: [] };
    const load = loadavg()[0] as number;
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      for (const side of SIDES) {
        const sample = await take[side](i);
        if (i >= WARMUP) samples[side].push(sample);
      }
    }
    const loadAfter = loadavg()[0] as number;

    const wall = (side: Side) => samples[side].map((s) => s.wall);
    const pickup = (side: Side) => samples[side].map((s) => s.pickup as number);
    const ms = (xs: number[]) => `p50 ${p(xs, 0.5).toFixed(1)}, p99 ${p(xs, 0.99).toFixed(1)}, max ${Math.max(...xs).toFixed(1)} ms`;
    console.log(
      [
        `${SAMPLES} samples each after ${WARMUP}, interleaved; load average ${load.toFixed(2)} before, ${loadAfter.toFixed(2)} after`,
        `  process executor: create → execute ${ms(pickup('process'))}; create → SUCCEEDED ${ms(wall('process'))}`,
        `  container executor: create → execute ${ms(pickup('container'))}; create → SUCCEEDED ${ms(wall('container'))}`,
        `  podman run: spawn → exit ${ms(wall('cli'))}`,
        `  Engine API, the exit from inspect: create → removed ${ms(wall('api'))}`,
        `  Engine API, the exit from wait: create → removed ${ms(wall('apiWait'))}`,
      ].join('\n'),
    );
    const containerWall = p(wall('container'), 0.5);
    return {
      'executor.process_pickup_p50_ms': p(pickup('process'), 0.5),
      'executor.process_wall_p50_ms': p(wall('process'), 0.5),
      'executor.process_wall_p99_ms': p(wall('process'), 0.99),
      'executor.container_pickup_p50_ms': p(pickup('container'), 0.5),
      'executor.container_wall_p50_ms': containerWall,
      'executor.container_wall_p99_ms': p(wall('container'), 0.99),
      'executor.podman_run_wall_p50_ms': p(wall('cli'), 0.5),
      'executor.podman_run_wall_p99_ms': p(wall('cli'), 0.99),
      'executor.engine_api_wall_p50_ms': p(wall('api'), 0.5),
      'executor.engine_api_wall_p99_ms': p(wall('api'), 0.99),
      'executor.engine_api_wait_wall_p50_ms': p(wall('apiWait'), 0.5),
      'executor.engine_api_wait_wall_p99_ms': p(wall('apiWait'), 0.99),
      'executor.container_overhead': containerWall / p(wall('api'), 0.5) - 1,
      // agentrun's run lifecycle on the store (create, claim, events, the end: the process executor's whole run) aside.
      'executor.container_overhead_own': (containerWall - p(wall('process'), 0.5)) / p(wall('api'), 0.5) - 1,
      'executor.container_overhead_cli': containerWall / p(wall('cli'), 0.5) - 1,
      'executor.container_overhead_wait': containerWall / p(wall('apiWait'), 0.5) - 1,
    };
  } finally {
    await worker.stop();
    await store.close();
  }
}

/** `podman run --rm` with the executor's default limits and hardening (packages/executor-container/src/container-spec.ts). */
async function podmanRun(podman: Podman, image: string): Promise<Sample> {
  const memory = `${CONTAINER_DEFAULTS.memoryMb}m`;
  const args = [
    '--runtime',
    'runc',
    'run',
    '--rm',
    '--network',
    CONTAINER_DEFAULTS.network,
    '--memory',
    memory,
    '--memory-swap',
    memory,
    '--cpus',
    String(CONTAINER_DEFAULTS.cpus),
    '--pids-limit',
    String(CONTAINER_DEFAULTS.pids),
    '--read-only',
    '--tmpfs',
    `/tmp:rw,nosuid,nodev,size=${CONTAINER_DEFAULTS.tmpMb}m,mode=1777`,
    '--cap-drop',
    'all',
    '--security-opt',
    'no-new-privileges',
    '--user',
    '65534:65534',
    image,
    ...AGENT,
  ];
  const started = performance.now();
  const child = spawn('podman', args, { env: { ...process.env, ...podman.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await withTimeout(new Promise<number | null>((resolve) => child.once('close', resolve)), 'podman run to exit');
  const wall = performance.now() - started;
  if (code !== 0 || out.trim() !== 'done') throw new Error(`podman run exited ${code}: ${out.slice(0, 500)}`);
  return { wall };
}

/**
 * The executor's own calls without agentrun: create (the same limits), attach, start, the exit,
 * remove. The exit as the executor reads it (`inspect`: the container's state once the attached
 * stream ended, docs/executors.md "Docker and Podman"), or from `wait` as a plain client of the API
 * does, which on Podman answers only after its cleanup process ran.
 */
async function apiRun(executor: ContainerExecutor, image: string, root: string, exitBy: 'inspect' | 'wait'): Promise<Sample> {
  const engine = executor.engine;
  const memory = CONTAINER_DEFAULTS.memoryMb * 2 ** 20;
  const started = performance.now();
  const id = await engine.create(undefined, {
    Image: image,
    Entrypoint: [AGENT[0] as string],
    Cmd: AGENT.slice(1),
    Env: [],
    WorkingDir: '/workspace',
    User: '65534:65534',
    Labels: {},
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    OpenStdin: true,
    StdinOnce: false,
    Tty: false,
    HostConfig: {
      Binds: [`${root}:/workspace:rw`],
      Tmpfs: { '/tmp': `rw,nosuid,nodev,size=${CONTAINER_DEFAULTS.tmpMb}m,mode=1777` },
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Memory: memory,
      MemorySwap: memory,
      NanoCpus: CONTAINER_DEFAULTS.cpus * 1e9,
      PidsLimit: CONTAINER_DEFAULTS.pids,
      NetworkMode: CONTAINER_DEFAULTS.network,
    },
  });
  const attached = await engine.attach(id);
  const ended = new Promise((resolve) => attached.once('end', resolve));
  attached.resume();
  await engine.start(id);
  const code = await withTimeout(exitBy === 'wait' ? engine.wait(id) : inspectedExit(engine, id, ended), 'the API container to exit');
  attached.destroy();
  await engine.remove(id);
  const wall = performance.now() - started;
  if (code !== 0) throw new Error(`the API path's container exited ${code}`);
  return { wall };
}

async function inspectedExit(engine: ContainerExecutor['engine'], id: string, ended: Promise<unknown>): Promise<number> {
  await ended;
  for (;;) {
    const state = await engine.inspect(id);
    if (state?.exited) return state.exitCode;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${SAMPLE_TIMEOUT_MS} ms`)), SAMPLE_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function p(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
}
