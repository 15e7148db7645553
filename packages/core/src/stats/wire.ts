import * as v from 'valibot';
import { RUN_STATES, type RunState } from '../models/run-state.js';
import { DEFAULT_STATS_RANGE, DELIVERY_STAT_LABELS, type DeliveryStatLabel, RUN_DURATION_GROUPINGS, STATS_RANGE_NAMES } from './ranges.js';

/**
 * The stats API's queries and answers (docs/management-api.md, "Stats"): one read per chart of
 * the dashboard's overview, the caller's team only.
 */

const rangeParam = v.optional(v.picklist(STATS_RANGE_NAMES, `must be one of ${STATS_RANGE_NAMES.join(', ')}`), DEFAULT_STATS_RANGE);

/** `?range=`: `1h`, `24h` (the default) or `7d`. */
export const StatsRangeQuerySchema = v.strictObject({ range: rangeParam });

/** `GET /stats/run-durations`: `?range=&by=harness|name`. */
export const RunDurationStatsQuerySchema = v.strictObject({
  range: rangeParam,
  by: v.optional(v.picklist(RUN_DURATION_GROUPINGS, `must be one of ${RUN_DURATION_GROUPINGS.join(', ')}`), 'harness'),
});

/** `GET /stats/deliveries`: `?range=&webhook_uid=`. */
export const DeliveryStatsQuerySchema = v.strictObject({
  range: rangeParam,
  webhook_uid: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(256))),
});

const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const series = v.array(count);
const range = v.picklist(STATS_RANGE_NAMES);
const stepSeconds = v.pipe(v.number(), v.integer(), v.description('The width of each bucket: 60 s for 1h, 900 s for 24h, 7200 s for 7d.'));
const from = v.pipe(v.string(), v.description("The first bucket's start (RFC 3339, ms)."));
const to = v.pipe(v.string(), v.description("The last bucket's end, exclusive: the last bucket holds now."));
const buckets = v.pipe(
  v.array(v.string()),
  v.description("Each bucket's start, oldest first (RFC 3339, ms); every series has one count per bucket."),
);

const byKeys = <K extends string>(keys: readonly K[]) =>
  v.strictObject(Object.fromEntries(keys.map((k) => [k, series])) as Record<K, typeof series>);

export const RunStatsSchema = v.object({
  range,
  step_seconds: stepSeconds,
  from,
  to,
  buckets,
  by_state: v.pipe(
    byKeys<RunState>(RUN_STATES),
    v.description('For each run state, the runs created in each bucket that are in that state now.'),
  ),
});
export type RunStats = v.InferOutput<typeof RunStatsSchema>;

export const RunDurationStatsSchema = v.object({
  range,
  from,
  to,
  by: v.picklist(RUN_DURATION_GROUPINGS),
  groups: v.pipe(
    v.array(
      v.object({
        key: v.pipe(v.string(), v.description('The harness (oz when the run names none), or the config name ("" when none).')),
        runs: count,
        p50_ms: count,
        p95_ms: count,
      }),
    ),
    v.description(
      'Runs created in the range that ended (a terminal state) after starting, by group, most runs first; percentiles from a log-scale histogram, within 9.1 % past 100 ms.',
    ),
  ),
});
export type RunDurationStats = v.InferOutput<typeof RunDurationStatsSchema>;

export const DeliveryStatsSchema = v.object({
  range,
  step_seconds: stepSeconds,
  from,
  to,
  buckets,
  webhooks: v.pipe(
    v.array(
      v.object({
        factory_uid: v.string(),
        webhook_uid: v.string(),
        by_label: byKeys<DeliveryStatLabel>(DELIVERY_STAT_LABELS),
      }),
    ),
    v.description('Each webhook with a delivery (or a rate-limit refusal) in the range, by factory then webhook UID.'),
  ),
});
export type DeliveryStats = v.InferOutput<typeof DeliveryStatsSchema>;

const instant = v.nullable(v.string());

export const QueueStatsSchema = v.object({
  queued: count,
  oldest_queued_at: v.pipe(instant, v.description("The oldest queued run's creation; null when none is queued.")),
  running: v.pipe(count, v.description('Runs a worker holds: CLAIMED, PENDING, INPROGRESS or BLOCKED.')),
  by_host: v.pipe(
    v.array(v.object({ worker_host: v.nullable(v.string()), queued: count, oldest_queued_at: instant })),
    v.description('The queued runs by the worker_host they are routed to (null: none named, first), then by host.'),
  ),
});
export type QueueStats = v.InferOutput<typeof QueueStatsSchema>;

export const CallbackStatsSchema = v.object({
  range,
  from,
  to,
  endpoints: v.pipe(
    v.array(
      v.object({
        endpoint_id: v.string(),
        url: v.string(),
        delivered: v.pipe(count, v.description('Attempts in the range the endpoint answered with a 2xx.')),
        failed: v.pipe(count, v.description('Attempts in the range that got no 2xx.')),
        last_failure_at: instant,
        last_error: v.nullable(v.string()),
      }),
    ),
    v.description(
      'Every callback endpoint of the team: those with a failed attempt in the range first (most failures first), then by endpoint ID.',
    ),
  ),
});
export type CallbackStats = v.InferOutput<typeof CallbackStatsSchema>;
