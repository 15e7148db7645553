import type {
  CallbackDeliveryWithAttempts,
  CallbackEndpointCounts,
  CallbackEndpointRecord,
  DeliveryStatLabel,
  DurationGroup,
  QueueCounts,
  RunRecord,
  RunState,
  RunStateCounts,
  StatsSpan,
  StatsStore,
  WebhookDeliveryCounts,
} from '@agentrun/core/store';
import {
  bucketIndex,
  DELIVERY_STAT_LABELS,
  DURATION_HISTOGRAM_SIZE,
  deliveryStatLabel,
  durationBucket,
  LEASED_STATES,
  RUN_STATES,
  runDurationKey,
  runDurationMs,
  runWorkerHost,
  type StatsWindow,
  TERMINAL_STATES,
} from '@agentrun/core/store';
import type { DeliveryStatsView } from './ingress.js';

/**
 * The stats in memory (docs/stores.md, "Stats"): counted from the stored records at each read,
 * in the read's own synchronous step, so they are exact and move the instant a record does. A
 * read walks every run (or delivery) of the store: fine for the sizes a memory store holds.
 */
export function createMemoryStats(
  allRuns: () => Iterable<RunRecord>,
  deliveries: DeliveryStatsView,
  callbackLog: () => { endpoints: Iterable<CallbackEndpointRecord>; deliveries: Iterable<CallbackDeliveryWithAttempts> },
): StatsStore {
  return {
    async runs(span) {
      const w = windowOf(span);
      const counts = Object.fromEntries(RUN_STATES.map((s) => [s, zeros(w.count)])) as RunStateCounts;
      for (const run of allRuns()) {
        if (run.teamUid !== span.teamUid) continue;
        const i = bucketIndex(w, Date.parse(run.createdAt));
        if (i >= 0) bump(counts[run.state], i, 1);
      }
      return counts;
    },
    async runDurations(span) {
      const groups = new Map<string, number[]>();
      for (const run of allRuns()) {
        if (run.teamUid !== span.teamUid || run.startedAt === null || !TERMINAL_STATES.has(run.state)) continue;
        if (run.createdAt < span.from || run.createdAt >= span.to) continue;
        const key = runDurationKey(run, span.by);
        const histogram = groups.get(key) ?? zeros(DURATION_HISTOGRAM_SIZE);
        groups.set(key, histogram);
        bump(histogram, durationBucket(runDurationMs(run)), 1);
      }
      return [...groups].map(([key, histogram]): DurationGroup => ({ key, histogram }));
    },
    async deliveries(span) {
      const w = windowOf(span);
      const webhooks = new Map<string, WebhookDeliveryCounts>();
      const count = (d: { teamUid: string; factoryUid: string; webhookUid: string }, atMs: number, label: DeliveryStatLabel, n: number) => {
        if (d.teamUid !== span.teamUid || (span.webhookUid !== undefined && d.webhookUid !== span.webhookUid)) return;
        const i = bucketIndex(w, atMs);
        if (i < 0) return;
        const h = webhooks.get(d.webhookUid) ?? {
          factoryUid: d.factoryUid,
          webhookUid: d.webhookUid,
          byLabel: Object.fromEntries(DELIVERY_STAT_LABELS.map((l) => [l, zeros(w.count)])) as WebhookDeliveryCounts['byLabel'],
        };
        webhooks.set(d.webhookUid, h);
        bump(h.byLabel[label], i, n);
      };
      for (const d of deliveries.entries()) {
        count(d, Date.parse(d.receivedAt), deliveryStatLabel(d.status, d.runIds?.length === 0), 1);
      }
      for (const r of deliveries.refusals()) count(r, r.minuteMs, 'Rate limited', r.n);
      return [...webhooks.values()];
    },
    async queue(teamUid) {
      const hosts = new Map<string | null, { workerHost: string | null; queued: number; oldestQueuedAt: string | null }>();
      const out: QueueCounts = { queued: 0, oldestQueuedAt: null, running: 0, byHost: [] };
      for (const run of allRuns()) {
        if (run.teamUid !== teamUid) continue;
        if (LEASED_STATES.has(run.state)) out.running++;
        if (run.state !== ('QUEUED' satisfies RunState)) continue;
        out.queued++;
        if (out.oldestQueuedAt === null || run.createdAt < out.oldestQueuedAt) out.oldestQueuedAt = run.createdAt;
        const host = runWorkerHost(run.config) ?? null;
        const h = hosts.get(host) ?? { workerHost: host, queued: 0, oldestQueuedAt: null };
        hosts.set(host, h);
        h.queued++;
        if (h.oldestQueuedAt === null || run.createdAt < h.oldestQueuedAt) h.oldestQueuedAt = run.createdAt;
      }
      out.byHost = [...hosts.values()];
      return out;
    },
    async callbacks(span) {
      const log = callbackLog();
      const byEndpoint = new Map<string, CallbackEndpointCounts>();
      for (const e of log.endpoints) {
        if (e.teamUid !== span.teamUid) continue;
        byEndpoint.set(e.id, { endpointId: e.id, url: e.url, delivered: 0, failed: 0, lastFailureAt: null, lastError: null });
      }
      for (const d of log.deliveries) {
        const e = byEndpoint.get(d.endpointId);
        if (e === undefined) continue;
        for (const a of d.attemptLog) {
          if (a.at < span.from || a.at >= span.to) continue;
          if (a.ok) e.delivered++;
          else {
            e.failed++;
            if (e.lastFailureAt === null || a.at > e.lastFailureAt) {
              e.lastFailureAt = a.at;
              e.lastError = a.error;
            }
          }
        }
      }
      return [...byEndpoint.values()];
    },
    // Counted at each read: nothing to fold (refusals drop their own old minutes: ingress.ts).
    compact: async () => 0,
  };
}

/** Add `n` to `counts[i]`. */
const bump = (counts: number[], i: number, n: number) => {
  counts[i] = (counts[i] ?? 0) + n;
};

const zeros = (n: number): number[] => new Array<number>(n).fill(0);

const windowOf = (span: StatsSpan): StatsWindow => {
  const fromMs = Date.parse(span.from);
  const toMs = Date.parse(span.to);
  const stepMs = span.stepSeconds * 1000;
  return { fromMs, toMs, stepMs, count: Math.round((toMs - fromMs) / stepMs) };
};
