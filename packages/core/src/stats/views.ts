import { compareCodePoints } from '../run/list-query.js';
import type { CallbackEndpointCounts, DurationGroup, QueueCounts, RunStateCounts, WebhookDeliveryCounts } from '../store/stats.js';
import { isoTime } from '../util/clock.js';
import { bucketStarts, type StatsWindow } from './buckets.js';
import { percentileFromHistogram } from './histogram.js';
import type { RunDurationGrouping, StatsRange } from './ranges.js';
import type { CallbackStats, DeliveryStats, QueueStats, RunDurationStats, RunStats } from './wire.js';

// The stats answers made from a store's counts (docs/management-api.md, "Stats"): the order, the
// percentiles and the bucket times are decided here, once, so every store answers alike.

const span = (range: StatsRange, w: StatsWindow) => ({ range, from: isoTime(w.fromMs), to: isoTime(w.toMs) });
const buckets = (w: StatsWindow) => ({ step_seconds: w.stepMs / 1000, buckets: bucketStarts(w).map(isoTime) });

export const runStatsView = (range: StatsRange, w: StatsWindow, counts: RunStateCounts): RunStats => ({
  ...span(range, w),
  ...buckets(w),
  by_state: counts,
});

export function runDurationStatsView(
  range: StatsRange,
  w: StatsWindow,
  by: RunDurationGrouping,
  groups: DurationGroup[],
): RunDurationStats {
  const rows = groups.map(({ key, histogram }) => ({
    key,
    runs: histogram.reduce((a, b) => a + b, 0),
    p50_ms: percentileFromHistogram(histogram, 0.5),
    p95_ms: percentileFromHistogram(histogram, 0.95),
  }));
  rows.sort((a, b) => b.runs - a.runs || compareCodePoints(a.key, b.key));
  return { ...span(range, w), by, groups: rows.filter((r) => r.runs > 0) };
}

export function deliveryStatsView(range: StatsRange, w: StatsWindow, webhooks: WebhookDeliveryCounts[]): DeliveryStats {
  const sorted = [...webhooks].sort(
    (a, b) => compareCodePoints(a.factoryUid, b.factoryUid) || compareCodePoints(a.webhookUid, b.webhookUid),
  );
  return {
    ...span(range, w),
    ...buckets(w),
    webhooks: sorted.map((h) => ({ factory_uid: h.factoryUid, webhook_uid: h.webhookUid, by_label: h.byLabel })),
  };
}

export function queueStatsView(q: QueueCounts): QueueStats {
  const hosts = [...q.byHost].sort((a, b) =>
    a.workerHost === null ? -1 : b.workerHost === null ? 1 : compareCodePoints(a.workerHost, b.workerHost),
  );
  return {
    queued: q.queued,
    oldest_queued_at: q.oldestQueuedAt,
    running: q.running,
    by_host: hosts.map((h) => ({ worker_host: h.workerHost, queued: h.queued, oldest_queued_at: h.oldestQueuedAt })),
  };
}

export function callbackStatsView(range: StatsRange, w: StatsWindow, endpoints: CallbackEndpointCounts[]): CallbackStats {
  const sorted = [...endpoints].sort(
    (a, b) => Number(b.failed > 0) - Number(a.failed > 0) || b.failed - a.failed || compareCodePoints(a.endpointId, b.endpointId),
  );
  return {
    ...span(range, w),
    endpoints: sorted.map((e) => ({
      endpoint_id: e.endpointId,
      url: e.url,
      delivered: e.delivered,
      failed: e.failed,
      last_failure_at: e.lastFailureAt,
      last_error: e.lastError,
    })),
  };
}
