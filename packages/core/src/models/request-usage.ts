import * as v from 'valibot';

/**
 * A run's `request_usage` (docs/run-api.md, "The run: `RunItem`"): what its agent reported it
 * cost, in the fields the published clients type (credits, and the same in US dollars). Reported
 * by the agent (the process executor's `usage` message, docs/executors.md), so untrusted: only
 * these fields, only finite numbers, each clamped to 0…`MAX_USAGE` (`mergeUsage`).
 */
export const REQUEST_USAGE_FIELDS = [
  'compute_cost',
  'compute_cost_usd',
  'inference_cost',
  'inference_cost_usd',
  'platform_cost',
  'platform_cost_usd',
  // Tokens, as the agent CLIs count them (docs/harnesses.md): what a run used when no cost is known.
  'input_tokens',
  'output_tokens',
] as const;

export type RequestUsageField = (typeof REQUEST_USAGE_FIELDS)[number];

export type RequestUsage = Partial<Record<RequestUsageField, number>>;

export const RequestUsageSchema = v.object(
  Object.fromEntries(REQUEST_USAGE_FIELDS.map((field) => [field, v.optional(v.number())])) as Record<
    RequestUsageField,
    v.OptionalSchema<v.NumberSchema<undefined>, undefined>
  >,
);

/** The largest amount a usage field keeps: a report above it is stored as this. */
export const MAX_USAGE = 1e12;

/**
 * `previous` updated with a report: each usage field the report gives as a finite number replaces
 * the run's, clamped to 0…`MAX_USAGE`; anything else in it (other keys, strings, NaN, infinities)
 * is ignored. A report is the run's totals so far, not an increment, so repeating one changes
 * nothing. `null` while nothing valid was ever reported.
 */
export function mergeUsage(previous: RequestUsage | null, report: Readonly<Record<string, unknown>>): RequestUsage | null {
  let next: RequestUsage | null = previous;
  for (const field of REQUEST_USAGE_FIELDS) {
    const value = report[field];
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    next = { ...next, [field]: Math.min(MAX_USAGE, Math.max(0, value)) };
  }
  return next;
}
