import type { RunState } from '../models/run-state.js';
import type { DeliveryStatLabel, RunDurationGrouping } from '../stats/ranges.js';

// The stats part of the Store port (docs/stores.md, "Stats"): the counts behind the dashboard's
// overview, one read per chart. A store answers counts per bucket; core turns them into the wire
// answers (stats/views.ts), sorting and computing percentiles, so stores agree by construction on
// everything but the counts, which the conformance suite holds equal.

/** A team's time span, `[from, to)`, RFC 3339 UTC with milliseconds, both multiples of `stepSeconds`. */
export interface StatsSpan {
  teamUid: string;
  from: string;
  to: string;
  /** The bucket width: 60, 900 or 7200 seconds (stats/ranges.ts `STATS_RANGES`). */
  stepSeconds: number;
}

/** Runs created in each bucket, counted under their current state: for each state, one count per bucket. */
export type RunStateCounts = Record<RunState, number[]>;

/** One group's duration histogram, indexed as stats/histogram.ts `durationBucket` says. */
export interface DurationGroup {
  /** The harness (`oz` when the run names none) or the config name (`""` when none). */
  key: string;
  histogram: number[];
}

/** One webhook's deliveries in each bucket, by label. */
export interface WebhookDeliveryCounts {
  factoryUid: string;
  webhookUid: string;
  byLabel: Record<DeliveryStatLabel, number[]>;
}

/** The team's queued runs now. */
export interface QueueCounts {
  queued: number;
  oldestQueuedAt: string | null;
  /** Runs a worker holds: the leased states (CLAIMED, PENDING, INPROGRESS, BLOCKED). */
  running: number;
  /** The queued runs by the host they are routed to (`null`: none named). */
  byHost: { workerHost: string | null; queued: number; oldestQueuedAt: string | null }[];
}

/** One callback endpoint's attempts in the span. */
export interface CallbackEndpointCounts {
  endpointId: string;
  url: string;
  /** Attempts answered 2xx. */
  delivered: number;
  /** Attempts that were not. */
  failed: number;
  lastFailureAt: string | null;
  lastError: string | null;
}

export interface StatsStore {
  /** Runs of the team created in the span, by bucket of `createdAt` and current state; every state present. */
  runs(span: StatsSpan): Promise<RunStateCounts>;
  /**
   * Runs of the team created in the span that are in a terminal state and had started, by group,
   * each with the histogram of `updatedAt - startedAt` (ms; 0 when negative). Groups with no run are left out.
   */
  runDurations(span: StatsSpan & { by: RunDurationGrouping }): Promise<DurationGroup[]>;
  /**
   * The team's deliveries received in the span (and refusals by a webhook's rate limit), by bucket,
   * webhook and label (stats/ranges.ts `DELIVERY_STAT_LABELS`); only webhooks with one, only
   * `webhookUid`'s when given.
   */
  deliveries(span: StatsSpan & { webhookUid?: string }): Promise<WebhookDeliveryCounts[]>;
  /** The team's queue now. */
  queue(teamUid: string): Promise<QueueCounts>;
  /** Every callback endpoint of the team, with its attempts made in the span. */
  callbacks(span: StatsSpan): Promise<CallbackEndpointCounts[]>;
  /**
   * Maintenance (the `stats-rollups` task): fold what the store writes with each change into what
   * it reads fast, and drop what no range reaches from `now` any more. No answer changes by it.
   * Resolves to how many records it folded or dropped.
   */
  compact(input: { now: string }): Promise<number>;
}
