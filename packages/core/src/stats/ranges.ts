/**
 * The stats API's time ranges and delivery labels (docs/management-api.md, "Stats"), as plain
 * values with no schema library behind them, so the dashboard and the client take them alone.
 */

/** The ranges a stats read covers, each cut into buckets of `stepSeconds`. */
export const STATS_RANGES = {
  '1h': { seconds: 3600, stepSeconds: 60 },
  '24h': { seconds: 86_400, stepSeconds: 900 },
  '7d': { seconds: 604_800, stepSeconds: 7200 },
} as const;

export type StatsRange = keyof typeof STATS_RANGES;

/** The range names, in order of length. */
export const STATS_RANGE_NAMES = Object.keys(STATS_RANGES) as StatsRange[];

/** The range a stats read covers when the query names none. */
export const DEFAULT_STATS_RANGE: StatsRange = '24h';

/**
 * How the delivery stats label each delivery, disjoint (docs/management-api.md, "Stats"):
 * `Accepted` started a run or is not evaluated yet, `Filtered out` was evaluated and started none,
 * `Rejected` is any of the three `Rejected (…)` log statuses, and `Rate limited` is a refusal by
 * the webhook's rate limit, which the delivery log does not keep.
 */
export const DELIVERY_STAT_LABELS = ['Accepted', 'Filtered out', 'Duplicate', 'Rejected', 'Rate limited'] as const;
export type DeliveryStatLabel = (typeof DELIVERY_STAT_LABELS)[number];

/** What `GET /stats/run-durations` groups by: the run's harness (`oz` when none) or its config name. */
export const RUN_DURATION_GROUPINGS = ['harness', 'name'] as const;
export type RunDurationGrouping = (typeof RUN_DURATION_GROUPINGS)[number];
