import * as v from 'valibot';
import { CALLBACK_DISPATCH_TASK } from '../callbacks/dispatch-task.js';
import type { Executor } from '../executor/executor.js';
import type { Evaluator } from '../ingress/evaluation/evaluator.js';
import type { Maintenance, MaintenanceTask } from '../maintenance/maintenance.js';
import { loopPart, ReportedFailure, type RunnerPart } from '../runner/part.js';
import { createRunner, type Runner } from '../runner/runner.js';
import type { Scheduler, SchedulerOptions } from '../schedules/scheduler.js';
import { SOURCE_POLL_TASK } from '../sources/poll.js';
import { checkOptions } from '../util/check-options.js';
import { newId } from '../util/ids.js';
import type { Worker, WorkerOptions } from '../worker/worker.js';

/** Settings of a runner's worker (its `runs` part); its dependencies come from the root. */
export type AgentRunRunsOptions = Omit<
  WorkerOptions,
  'runs' | 'store' | 'events' | 'clock' | 'maintenance' | 'sessionLink' | 'executor' | 'telemetry'
> & {
  /** Default: the `executor` given to `createAgentRun`. */
  executor?: Executor;
};

/**
 * Which parts a process's runner runs (docs/embedding.md, "The runner"): each on by default, or
 * `false` for none in this process.
 */
export interface AgentRunRunnerOptions {
  /** Claim and execute runs (the worker): its settings. Default: on, with the defaults. */
  runs?: false | AgentRunRunsOptions;
  /** Make the runs of accepted deliveries (docs/webhooks.md, "When runs start"). Default: on. */
  evaluation?: boolean;
  /** Start schedules' runs at their due times (docs/schedules.md): its settings. Default: on. */
  schedules?: false | Omit<SchedulerOptions, 'runs'>;
  /** Housekeeping (docs/embedding.md, "Maintenance"). Default: on. */
  maintenance?: boolean;
  /** Send run-state callbacks (docs/callbacks.md). Default: on. */
  callbacks?: boolean;
  /** Poll factory sources (docs/repositories.md). Default: on. */
  sources?: boolean;
  /** How often maintenance, callbacks and sources look for what is due. Default: the runs' `pollIntervalMs`, else 1 s. */
  tickMs?: number;
  /** Parts of the host's own (a presence heartbeat: runner/part.ts `loopPart`), started and stopped with the rest. */
  parts?: readonly RunnerPart[];
  /** Errors of the parts. Default: `createAgentRun`'s `onError`. */
  onError?: (error: unknown) => void;
}

/** A runner made by `agentrun.runner()`. */
export interface AgentRunRunner extends Runner {
  /** Its `runs` part (poll now, wait until idle, …); undefined with `runs: false`. */
  readonly worker: Worker | undefined;
}

/** What the root hands a runner: its shared services, and how to make a worker and a scheduler. */
export interface RunnerRoot {
  makeWorker(options: AgentRunRunsOptions): Worker;
  makeScheduler(options: Omit<SchedulerOptions, 'runs'>): Scheduler;
  /** The schedulers running now, woken when a schedule is saved in this process. */
  schedulers: Set<Scheduler>;
  /** One per agentrun; runners share it (it runs while any runner's `evaluation` part runs). */
  evaluator: Evaluator;
  maintenance: Maintenance;
  onError(error: unknown): void;
  /** After a runner stopped: the API keys' pending `last_used_at`. */
  flushKeyUsage(): Promise<void>;
}

const flag = v.optional(v.boolean('must be true or false'));
const partShape = v.custom<RunnerPart>(
  (x) =>
    typeof x === 'object' &&
    x !== null &&
    typeof (x as RunnerPart).name === 'string' &&
    ['start', 'stop', 'health'].every((m) => typeof (x as unknown as Record<string, unknown>)[m] === 'function'),
  'must be a RunnerPart (name, start, stop, health)',
);
const RunnerOptionsSchema = v.strictObject({
  runs: v.optional(v.union([v.literal(false), v.looseObject({})], 'must be false or the worker settings')),
  evaluation: flag,
  schedules: v.optional(v.union([v.literal(false), v.looseObject({})], 'must be false or the scheduler settings')),
  maintenance: flag,
  callbacks: flag,
  sources: flag,
  tickMs: v.optional(v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(1, 'must be at least 1'))),
  parts: v.optional(v.array(partShape, 'must be an array')),
  onError: v.optional(v.custom<(e: unknown) => void>((x) => typeof x === 'function', 'must be a function')),
});

/** The maintenance tasks each task part runs: callbacks and sources their own, `maintenance` the rest. */
const isCallbacks = (task: MaintenanceTask) => task.name === CALLBACK_DISPATCH_TASK;
const isSources = (task: MaintenanceTask) => task.name === SOURCE_POLL_TASK;
const isHousekeeping = (task: MaintenanceTask) => !isCallbacks(task) && !isSources(task);

/**
 * `agentrun.runner()`: the parts a process runs (docs/architecture.md, "The runner"), made from
 * the root's services, with one start, one stop and one health report.
 */
export function makeAgentRunRunner(root: RunnerRoot, options: AgentRunRunnerOptions = {}): AgentRunRunner {
  checkOptions('agentrun.runner', RunnerOptionsSchema, options);
  const onError = options.onError ?? root.onError;
  const parts: RunnerPart[] = [];

  const worker = options.runs === false ? undefined : root.makeWorker(options.runs ?? {});
  if (worker) {
    parts.push({ name: 'runs', start: worker.start, stop: (o) => worker.stop(o), health: worker.health });
    // The worker's presence record (docs/operations.md, "Worker hosts"): a part in the health
    // report, started and stopped by the worker itself, whose stop removes it after the hand-back.
    parts.push({ name: 'presence', start() {}, stop: async () => {}, health: worker.presence.health });
  }

  if (options.evaluation !== false) {
    // Once per runner however often it starts: the evaluator counts its starts.
    let evaluating = false;
    parts.push({
      name: 'evaluation',
      start() {
        if (!evaluating) root.evaluator.start();
        evaluating = true;
      },
      async stop() {
        if (!evaluating) return;
        evaluating = false;
        await root.evaluator.stop();
      },
      health: root.evaluator.health,
    });
  }

  if (options.schedules !== false) {
    // Due schedules start their runs from every process that runs them; the store makes each once.
    const scheduler = root.makeScheduler(options.schedules ?? {});
    parts.push({
      name: 'schedules',
      start() {
        root.schedulers.add(scheduler);
        scheduler.start();
      },
      stop() {
        root.schedulers.delete(scheduler);
        return scheduler.stop();
      },
      health: scheduler.health,
    });
  }

  // Maintenance, callbacks and sources: the root's maintenance tasks, each part its own, on one tick.
  const everyMs = options.tickMs ?? (options.runs ? options.runs.pollIntervalMs : undefined) ?? 1000;
  const taskPart = (name: string, select: (task: MaintenanceTask) => boolean) =>
    loopPart({
      name,
      everyMs,
      onError,
      pass: async () => {
        const { errors } = await root.maintenance.runDue(select);
        if (errors.length > 0) throw new ReportedFailure(errors);
      },
    });
  if (options.maintenance !== false) parts.push(taskPart('maintenance', isHousekeeping));
  if (options.callbacks !== false) parts.push(taskPart('callbacks', isCallbacks));
  if (options.sources !== false) parts.push(taskPart('sources', isSources));
  parts.push(...(options.parts ?? []));

  const runner = createRunner({
    id: worker?.id ?? newId(),
    parts,
    // A process stopping its runner is shutting down: the keys' last uses are written once
    // every part has stopped, whatever their stops did.
    afterStop: root.flushKeyUsage,
  });
  return { ...runner, worker };
}
