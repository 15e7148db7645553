import * as v from 'valibot';

/** `GET /healthz`: the process answers (docs/operations.md, "Health"). */
export const HealthSchema = v.object({ status: v.literal('ok') });

/** One readiness check and how it went. */
const CheckSchema = v.object({
  name: v.pipe(v.string(), v.description('`store`, `migrations` or `workers`.')),
  ok: v.boolean(),
  detail: v.string(),
});

/** One part of a runner of this process and how its passes go (runner/loop.ts). */
const PartSchema = v.object({
  runner: v.pipe(v.string(), v.description('The runner: its worker id when it runs runs.')),
  name: v.pipe(
    v.string(),
    v.description('`runs`, `presence`, `evaluation`, `schedules`, `maintenance`, `callbacks`, `sources`, or a part of the host.'),
  ),
  running: v.boolean(),
  last_success_at: v.pipe(v.nullable(v.string()), v.description('When its last pass that worked ended.')),
  last_error_at: v.pipe(v.nullable(v.string()), v.description('When its last pass that failed ended.')),
  consecutive_failures: v.pipe(v.number(), v.description('Passes failed since the last that worked: a part failing now has one or more.')),
});

/** `GET /readyz` when ready; a 503 problem names the failed checks in its `errors` instead. */
export const ReadinessSchema = v.object({
  status: v.literal('ready'),
  checks: v.array(CheckSchema),
  parts: v.pipe(v.array(PartSchema), v.description('The running runners\' parts (docs/operations.md, "Health").')),
});

export type ReadinessCheck = v.InferOutput<typeof CheckSchema>;
export type PartReport = v.InferOutput<typeof PartSchema>;
