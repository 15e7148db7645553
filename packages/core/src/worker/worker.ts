import type { ArtifactService } from '../artifacts/artifact-service.js';
import type { AgentRunEvents } from '../events.js';
import type { Executor } from '../executor/executor.js';
import type { Maintenance } from '../maintenance/maintenance.js';
import type { Notification } from '../notify/notification.js';
import type { RunService } from '../run/run-service.js';
import type { Store } from '../store/store.js';
import type { WorkerTelemetry } from '../telemetry/execution-span.js';
import type { Clock } from '../util/clock.js';
import { newId } from '../util/ids.js';
import { everyMs } from '../util/throttle.js';
import { recoverExpiredLeases } from './lease-recovery.js';
import { pollBackoff } from './poll-backoff.js';
import { type PollLoop, pollLoop } from './poll-loop.js';
import type { EnvironmentResolver, HarnessAuthResolver } from './run-environment.js';
import { runsPart } from './runs-part.js';
import { listenForSignals, type Signals } from './signals.js';
import type { Execution, RunWorkContext } from './worker-context.js';
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
  /** Housekeeping run on the worker's timer; none without it. */
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
}

/**
 * An in-process worker: claims queued runs from the store, moves each to `INPROGRESS`, and drives
 * it through the executor. It renews its lease while a run executes; a run whose lease lapses
 * (its worker died) is re-queued by any worker's recovery sweep. New runs, cancels and follow-ups
 * reach it at once through the store's notifications, from any process sharing the store (through
 * this process's events when the store has none), and otherwise at the next poll or heartbeat.
 *
 * A pool of parts (docs/executors.md, "Worker parts"): this file owns the timer, the backoff, the
 * signals and the stop; each kind of work is a `WorkerPart` (worker-part.ts), runs-part.ts the
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

  let started = false;
  /** Set from the first moment of `stop()`: nothing more is taken, even on a signal. */
  let stopping = false;
  const backoff = pollBackoff(pollIntervalMs);
  let timer: ReturnType<typeof setInterval> | undefined;
  let signals: Signals | undefined;

  // Each part with its own loop, so its polls run one at a time (poll-loop.ts). More kinds of
  // work join `parts` here, as runsPart does.
  const loops = new Map<WorkerPart, PollLoop>();
  const addPart = (make: (host: PartHost) => WorkerPart) => {
    let loop: PollLoop | undefined;
    const host: PartHost = { started: () => started, stopping: () => stopping, wake: () => void loop?.schedule() };
    const part = make(host);
    loop = pollLoop(() => part.take(), { backoff, onError, started: () => started });
    loops.set(part, loop);
    return loop;
  };
  const runsLoop = addPart((host) => runsPart(ctx, host));
  const parts = () => [...loops.entries()];

  const hear = (n: Notification) => {
    for (const [part, loop] of parts()) part.hear(n, () => void loop.schedule());
  };
  const polling = () => Promise.all(parts().map(([, loop]) => loop.current));
  const held = () => parts().some(([part, loop]) => part.held() > 0 || loop.current !== undefined);
  const settled = () => Promise.all(parts().map(([part]) => part.settled()));

  return {
    id,
    start() {
      if (started) return;
      started = true;
      signals = listenForSignals(store, events, onError, hear);
      const tick = () => {
        if (!backoff.due(Date.now())) return;
        for (const [part, loop] of parts()) {
          void part.sweep?.().catch((error) => {
            backoff.failed(Date.now());
            onError(error);
          });
          void loop.schedule();
        }
        // Housekeeping rides on the same timer (maintenance/maintenance.ts): each task when due.
        void maintenance?.runDue();
      };
      timer = setInterval(tick, pollIntervalMs);
      tick();
    },
    async stop(options: WorkerStopOptions = {}) {
      started = false;
      stopping = true;
      if (timer) clearInterval(timer);
      await polling();
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
      const listening = signals;
      signals = undefined;
      await listening?.stop();
      // Abort what is left and hand it back now rather than after the lease lapses.
      for (const [part] of parts()) await part.release();
      stopping = false;
    },
    poll: () => runsLoop.schedule(),
    async idle() {
      // Listening too: a run another process queues from now on wakes this worker (its NOTIFY
      // is not missed while the LISTEN is still being set up).
      await signals?.ready;
      while (held()) {
        await polling();
        await settled();
      }
    },
    recoverExpiredLeases: () => recoverExpiredLeases(ctx),
  };
}
