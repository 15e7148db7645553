import type { ArtifactService } from '../artifacts/artifact-service.js';
import type { AgentRunEvents } from '../events.js';
import type { Executor } from '../executor/executor.js';
import type { Maintenance } from '../maintenance/maintenance.js';
import type { RunService } from '../run/run-service.js';
import { MAX_BACKOFF_MS } from '../runner/backoff.js';
import { createLoop, type Loop, type LoopHealth } from '../runner/loop.js';
import type { Store } from '../store/store.js';
import type { WorkerTelemetry } from '../telemetry/execution-span.js';
import type { Clock } from '../util/clock.js';
import { newId } from '../util/ids.js';
import { everyMs } from '../util/throttle.js';
import { recoverExpiredLeases } from './lease-recovery.js';
import { workerPresence } from './presence.js';
import type { EnvironmentResolver, HarnessAuthResolver } from './run-environment.js';
import { runsPart } from './runs-part.js';
import type { Execution, RunWorkContext } from './worker-context.js';
import { DEFAULT_WORKER_HOST } from './worker-hosts.js';
import { checkWorkerOptions } from './worker-options.js';
import type { PartHost, WorkerPart } from './worker-part.js';

/**
 * What a worker works with, handed over by the composition root (`agentrun.worker()`,
 * app/create-agent-run.ts) rather than reached for through a handler.
 */
export interface WorkerDeps {
  /** Every state change goes through the run service's state machine. */
  runs: RunService;
  store: Store;
  events: AgentRunEvents;
  clock: Clock;
  /** Housekeeping run on the worker's timed polls (a hand-made worker's; a runner has a part of its own for it); none without it. */
  maintenance?: Maintenance;
  /**
   * The `session_link` a run gets when it starts without one: its dashboard page, from
   * `createAgentRun`'s `publicBaseUrl` (run/session-link.ts). None without it.
   */
  sessionLink?: (runId: string) => string;
  /** Pickup latency and a span per execution (telemetry/execution-span.ts); from `agentrun.worker()`. */
  telemetry?: WorkerTelemetry;
  /** Opens a run's environment for the executor (worker/run-environment.ts), asked only for a run with `environment_id`; from `agentrun.worker()`. */
  resolveEnvironment?: EnvironmentResolver;
  /** Opens the team secrets a run's config names for its harness's key (harness/resolve-harness-auth.ts), asked only for a run that names one; from `agentrun.worker()`. */
  resolveHarnessAuth?: HarnessAuthResolver;
  /** Keeps what agents report as artifacts (docs/artifacts.md); without it `reportArtifact` refuses every report. */
  artifacts?: ArtifactService;
}

export interface WorkerOptions extends WorkerDeps {
  executor: Executor;
  /** Names this worker in leases. Default: a random UUID. */
  workerId?: string;
  /**
   * The host it serves: it claims runs whose `config.worker_host` is this (docs/operations.md,
   * "Worker hosts"). Default `"default"` (the reference server: AGENTRUN_WORKER_HOST, else the OS hostname).
   */
  host?: string;
  /** Whether it also claims runs that name no `worker_host`. Default true. */
  unrouted?: boolean;
  /** The executor's name in the workers list (`GET /api/v1/workers`). Default: the executor's class name. */
  executorName?: string;
  /** The agentrun version in the workers list. Default: `"unknown"`. */
  version?: string;
  /** How often its presence record is written. Default `WORKER_PRESENCE.heartbeatMs` (5 s). */
  presenceMs?: number;
  /** Runs executed at once. Default 4. */
  concurrency?: number;
  /** How often to look for queued runs and expired leases when no event says so. Default 1000 ms. */
  pollIntervalMs?: number;
  /** How long a claim lasts without a heartbeat. Default 30 s. */
  leaseMs?: number;
  /** How often a running execution renews its lease. Default a third of `leaseMs`. */
  heartbeatMs?: number;
  /** Errors of the worker itself (a store that failed, an executor that threw). */
  onError?: (error: unknown) => void;
}

export interface WorkerStopOptions {
  /** How long running executions may take to finish before they are aborted and handed back. Default 0. */
  graceMs?: number;
}

export interface Worker {
  readonly id: string;
  /** Begin claiming runs. */
  start(): void;
  /**
   * Stop claiming; let running executions finish for up to `graceMs` (default 0), still hearing
   * their cancels and follow-ups; then abort those left and hand their runs back to the queue
   * (docs/executors.md, "Stopping a worker").
   */
  stop(options?: WorkerStopOptions): Promise<void>;
  /** Claim queued runs up to capacity now; resolves to how many were claimed. */
  poll(): Promise<number>;
  /** Resolves when no execution is running, and (on a store with notifications) once the worker listens. */
  idle(): Promise<void>;
  /** Re-queue (or end in `ERROR`) runs whose lease expired; resolves to how many. */
  recoverExpiredLeases(): Promise<number>;
  /** How its polls go (runner/loop.ts), for the health report. */
  health(): LoopHealth;
  /** How its presence heartbeats go (presence.ts): started and stopped with it, last on stop. */
  readonly presence: { health(): LoopHealth };
}

/**
 * An in-process worker: claims queued runs from the store, moves each to `INPROGRESS`, and drives
 * it through the executor. It renews its lease while a run executes; a run whose lease lapses
 * (its worker died) is re-queued by any worker's recovery sweep. New runs, cancels and follow-ups
 * reach it at once through the store's notifications, from any process sharing the store (through
 * this process's events when the store has none), and otherwise at the next poll or heartbeat.
 *
 * A pool of parts (docs/executors.md, "Worker parts"): this file owns the stop, and gives each part
 * the runner's loop (runner/loop.ts: timer, backoff, signals); each kind of work is a `WorkerPart` (worker-part.ts), runs-part.ts the
 * runs' (claims, executions in execute-run.ts, heartbeats, lease recovery, hand-back).
 */
export function createWorker(options: WorkerOptions): Worker {
  checkWorkerOptions(options);
  const { runs: service, store, events, clock, maintenance } = options;
  const id = options.workerId ?? newId();
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const leaseMs = options.leaseMs ?? 30_000;
  const report = options.onError ?? ((error: unknown) => console.error('[agentrun] worker error', error));
  // While the store is unreachable every poll and heartbeat fails alike: report that once every
  // 10 s, not once per poll; the worker keeps polling and resumes by itself (docs/production.md).
  const outageReported = everyMs(10_000);
  const onError = (error: unknown) => {
    if (store.isUnavailable?.(error) && !outageReported.due(Date.now())) return;
    report(error);
  };
  const ctx: RunWorkContext = {
    id,
    host: options.host ?? DEFAULT_WORKER_HOST,
    unrouted: options.unrouted ?? true,
    service,
    store,
    events,
    clock,
    executor: options.executor,
    concurrency: options.concurrency ?? 4,
    leaseMs,
    heartbeatMs: options.heartbeatMs ?? Math.max(10, Math.floor(leaseMs / 3)),
    sessionLink: options.sessionLink,
    telemetry: options.telemetry,
    resolveEnvironment: options.resolveEnvironment,
    resolveHarnessAuth: options.resolveHarnessAuth,
    artifacts: options.artifacts,
    onError,
    running: new Map<string, Execution>(),
  };

  const presence = workerPresence(
    ctx,
    {
      host: ctx.host,
      unrouted: ctx.unrouted,
      executor: options.executorName ?? executorName(options.executor),
      version: options.version ?? 'unknown',
    },
    options.presenceMs,
  );

  let started = false;
  /** Set from the first moment of `stop()`: nothing more is taken, even on a signal. */
  let stopping = false;

  // Each part with its own loop (runner/loop.ts): its polls one at a time, its timer, its backoff
  // and its ear. More kinds of work join `loops` here, as runsPart does.
  const loops = new Map<WorkerPart, Loop<number>>();
  const addPart = (make: (host: PartHost) => WorkerPart) => {
    let loop: Loop<number> | undefined;
    const host: PartHost = { started: () => started, stopping: () => stopping, wake: () => loop?.wake() };
    const part = make(host);
    const sweep = part.sweep?.bind(part);
    loop = createLoop<number>({
      // The timed pass also sweeps (lease recovery); its failure backs the timer off like the take's,
      // the two counting once. Housekeeping of a hand-made worker rides on it too.
      pass: (cause) => {
        if (cause !== 'timer' || !started) return part.take();
        void maintenance?.runDue();
        return Promise.all([sweep?.(), part.take()]).then(([, taken]) => taken);
      },
      nextMs: () => pollIntervalMs,
      backoff: { baseMs: pollIntervalMs * 2, maxMs: Math.max(pollIntervalMs, MAX_BACKOFF_MS) },
      onError,
      failed: 0,
      signals: { store, events, hear: (n, wake) => part.hear(n, wake) },
    });
    loops.set(part, loop);
    return loop;
  };
  const runsLoop = addPart((host) => runsPart(ctx, host));
  const parts = () => [...loops.entries()];

  const polling = () => Promise.all(parts().map(([, loop]) => loop.current));
  const held = () => parts().some(([part, loop]) => part.held() > 0 || loop.current !== undefined);
  const settled = () => Promise.all(parts().map(([part]) => part.settled()));

  return {
    id,
    start() {
      if (started) return;
      started = true;
      for (const [, loop] of parts()) loop.start();
      presence.start();
      // What a worker of this host that died left running (docs/executors.md, "The Executor interface").
      void options.executor.sweep?.().catch(onError);
    },
    async stop(options: WorkerStopOptions = {}) {
      started = false;
      stopping = true;
      // No poll from now on; the one under way ends first.
      await Promise.all(parts().map(([, loop]) => loop.halt()));
      // Drain: executions may finish on their own within the grace period; notifications stay on
      // meanwhile, so a cancel or a follow-up still reaches them at once.
      const graceMs = options.graceMs ?? 0;
      if (graceMs > 0 && held()) {
        let timeout: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          settled(),
          new Promise<void>((resolve) => {
            timeout = setTimeout(resolve, graceMs);
          }),
        ]);
        clearTimeout(timeout);
      }
      await Promise.all(parts().map(([, loop]) => loop.stop()));
      // Abort what is left and hand it back now rather than after the lease lapses.
      for (const [part] of parts()) await part.release();
      await presence.stop();
      stopping = false;
    },
    poll: () => runsLoop.run(),
    async idle() {
      // Listening too: a run another process queues from now on wakes this worker (its NOTIFY
      // is not missed while the LISTEN is still being set up).
      await Promise.all(parts().map(([, loop]) => loop.listening));
      while (held()) {
        await polling();
        await settled();
      }
    },
    health: () => runsLoop.health(),
    presence: { health: presence.health },
    recoverExpiredLeases: () => recoverExpiredLeases(ctx),
  };
}

/** An executor's name for the workers list: its class's, unless that is a plain object's. */
function executorName(executor: Executor): string {
  const name = (executor as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' && name !== 'Object' ? name : 'executor';
}
