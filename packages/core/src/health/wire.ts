import * as v from 'valibot';

/** `GET /healthz`: the process answers (docs/operations.md, "Health"). */
export const HealthSchema = v.object({ status: v.literal('ok') });

/** One readiness check and how it went. */
const CheckSchema = v.object({
  name: v.pipe(v.string(), v.description('`store`, `migrations` or `workers`.')),
  ok: v.boolean(),
  detail: v.string(),
});

/** `GET /readyz` when ready; a 503 problem names the failed checks in its `errors` instead. */
export const ReadinessSchema = v.object({ status: v.literal('ready'), checks: v.array(CheckSchema) });

export type ReadinessCheck = v.InferOutput<typeof CheckSchema>;
