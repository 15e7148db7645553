import * as v from 'valibot';
import { checkOptions } from '../util/check-options.js';

const positiveInt = v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(1, 'must be at least 1'));
const withMethods = (...names: string[]) =>
  v.custom<object>(
    (x) => typeof x === 'object' && x !== null && names.every((n) => typeof (x as Record<string, unknown>)[n] === 'function'),
    `must be an object with ${names.join(', ')}`,
  );

const WorkerOptionsSchema = v.strictObject({
  service: v.custom<object>(
    (x) => typeof x === 'object' && x !== null && 'store' in x && 'events' in x,
    'must be the RunService of a handler (handler.service)',
  ),
  executor: withMethods('execute'),
  workerId: v.optional(v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'))),
  concurrency: v.optional(positiveInt),
  pollIntervalMs: v.optional(positiveInt),
  leaseMs: v.optional(positiveInt),
  heartbeatMs: v.optional(positiveInt),
  onError: v.optional(v.custom<(e: unknown) => void>((x) => typeof x === 'function', 'must be a function')),
});

/** `createWorker` options, checked when the worker is made (docs/executors.md). */
export const checkWorkerOptions = (options: unknown): void =>
  checkOptions('createWorker', WorkerOptionsSchema, options, {
    service: 'the RunService of a handler (handler.service)',
    executor: 'an Executor, such as demoExecutor()',
  });
