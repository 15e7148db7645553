import * as v from 'valibot';
import { checkOptions } from '../util/check-options.js';

const positiveInt = v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(1, 'must be at least 1'));
const withMethods = (...names: string[]) =>
  v.custom<object>(
    (x) => typeof x === 'object' && x !== null && names.every((n) => typeof (x as Record<string, unknown>)[n] === 'function'),
    `must be an object with ${names.join(', ')}`,
  );

const storeShape = v.custom<object>(
  (x) => typeof x === 'object' && x !== null && ['runs', 'apiKeys', 'deliveries'].every((k) => k in x),
  'must be a Store',
);

const WorkerOptionsSchema = v.strictObject({
  runs: v.custom<object>(
    (x) => typeof x === 'object' && x !== null && typeof (x as { applyEvent?: unknown }).applyEvent === 'function',
    'must be a RunService (agentrun.services.runs)',
  ),
  store: storeShape,
  events: withMethods('on', 'off', 'emit'),
  clock: withMethods('now'),
  maintenance: v.optional(withMethods('runDue')),
  executor: withMethods('execute'),
  workerId: v.optional(v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'))),
  host: v.optional(
    v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(256, 'must be at most 256 characters')),
  ),
  unrouted: v.optional(v.boolean('must be a boolean')),
  executorName: v.optional(v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'))),
  version: v.optional(v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'))),
  presenceMs: v.optional(positiveInt),
  concurrency: v.optional(positiveInt),
  pollIntervalMs: v.optional(positiveInt),
  leaseMs: v.optional(positiveInt),
  heartbeatMs: v.optional(positiveInt),
  telemetry: v.optional(withMethods('claimed', 'execution')),
  resolveEnvironment: v.optional(v.custom<object>((x) => typeof x === 'function', 'must be a function')),
  resolveHarnessAuth: v.optional(v.custom<object>((x) => typeof x === 'function', 'must be a function')),
  artifacts: v.optional(withMethods('report')),
  sessionLink: v.optional(v.custom<(runId: string) => string>((x) => typeof x === 'function', 'must be a function')),
  onError: v.optional(v.custom<(e: unknown) => void>((x) => typeof x === 'function', 'must be a function')),
});

/**
 * `createWorker` options, checked when the worker is made (docs/executors.md). `agentrun.worker()`
 * passes the dependencies itself; hand-made workers name them.
 */
export const checkWorkerOptions = (options: unknown): void =>
  checkOptions('createWorker', WorkerOptionsSchema, options, {
    runs: 'a RunService (agentrun.services.runs); agentrun.worker() passes it for you',
    executor: 'an Executor, such as demoExecutor()',
  });
