import type {
  CallbackEndpointCounts,
  DeliveryStatLabel,
  DurationGroup,
  QueueCounts,
  RunState,
  RunStateCounts,
  StatsSpan,
  StatsStore,
  WebhookDeliveryCounts,
} from '@agentrun/core/store';
import { DELIVERY_STAT_LABELS, DURATION_HISTOGRAM_SIZE, RUN_STATES } from '@agentrun/core/store';
import { sql } from 'kysely';
import type { Db } from './db.js';
import { iso } from './rows.js';
import { statsQueries } from './stats-sql.js';
import type { Tables } from './tables.js';

/**
 * The stats part (docs/stores.md, "Stats"): rollups kept exact by triggers, folded by the
 * maintenance task (`compact`), read with one statement per aggregate (stats-sql.ts).
 */
export function createStats(db: Db, t: Tables): StatsStore {
  const q = statsQueries(t);
  const rows = async <R>(query: { execute(db: Db): Promise<{ rows: R[] }> }) => (await query.execute(db)).rows;
  const count = (span: StatsSpan) => Math.round((Date.parse(span.to) - Date.parse(span.from)) / (span.stepSeconds * 1000));
  const zeros = (n: number) => new Array<number>(n).fill(0);
  /** Add `n` at `i` when the bucket is in the span (a delta's minute always is). */
  const add = (series: number[], i: number, n: number) => {
    if (i >= 0 && i < series.length) series[i] = (series[i] ?? 0) + n;
  };

  return {
    async runs(span) {
      const counts = Object.fromEntries(RUN_STATES.map((s) => [s, zeros(count(span))])) as RunStateCounts;
      for (const r of await rows(q.runs(span))) {
        const series = counts[r.state as RunState];
        if (series) add(series, r.i, r.n);
      }
      return counts;
    },
    async runDurations(span) {
      const groups = new Map<string, number[]>();
      for (const r of await rows(q.runDurations(span, span.by))) {
        const histogram = groups.get(r.key) ?? zeros(DURATION_HISTOGRAM_SIZE);
        groups.set(r.key, histogram);
        add(histogram, r.b, r.n);
      }
      return [...groups].map(([key, histogram]): DurationGroup => ({ key, histogram }));
    },
    async deliveries(span) {
      const n = count(span);
      const webhooks = new Map<string, WebhookDeliveryCounts>();
      for (const r of await rows(q.deliveries(span, span.webhookUid))) {
        const h = webhooks.get(r.webhook_uid) ?? {
          factoryUid: r.factory_uid,
          webhookUid: r.webhook_uid,
          byLabel: Object.fromEntries(DELIVERY_STAT_LABELS.map((l) => [l, zeros(n)])) as WebhookDeliveryCounts['byLabel'],
        };
        webhooks.set(r.webhook_uid, h);
        const series = h.byLabel[r.label as DeliveryStatLabel];
        if (series) add(series, r.i, r.n);
      }
      return [...webhooks.values()];
    },
    async queue(teamUid) {
      const out: QueueCounts = { queued: 0, oldestQueuedAt: null, running: 0, byHost: [] };
      for (const r of await rows(q.queue(teamUid))) {
        if (!r.queued) {
          out.running += r.n;
          continue;
        }
        const oldest = iso(r.oldest);
        out.queued += r.n;
        if (out.oldestQueuedAt === null || oldest < out.oldestQueuedAt) out.oldestQueuedAt = oldest;
        out.byHost.push({ workerHost: r.worker_host, queued: r.n, oldestQueuedAt: oldest });
      }
      return out;
    },
    async callbacks(span) {
      return (await rows(q.callbacks(span))).map(
        (r): CallbackEndpointCounts => ({
          endpointId: r.id,
          url: r.url,
          delivered: r.delivered,
          failed: r.failed,
          lastFailureAt: r.last_failure_at === null ? null : iso(r.last_failure_at),
          lastError: r.last_error,
        }),
      );
    },
    async compact({ now }) {
      return db.transaction().execute(async (tx) => {
        // One folder at a time; another arriving meanwhile has nothing left to do and skips.
        const { rows: lock } = await sql<{
          ok: boolean;
        }>`SELECT pg_try_advisory_xact_lock(hashtext(${`agentrun.stats:${t.schema}`})) AS ok`.execute(tx);
        if (!lock[0]?.ok) return 0;
        let n = 0;
        for (const statement of [q.foldRuns(now), q.foldDeliveries(now), q.dropOld(now)])
          n += (await statement.execute(tx)).rows[0]?.n ?? 0;
        return n;
      });
    },
  };
}

/** Rate-limit refusals, as deltas (the delivery log keeps no refused delivery): see stats-sql.ts `refusals`. */
export const recordRefusals = async (
  db: Db,
  t: Tables,
  refused: readonly { teamUid: string; factoryUid: string; webhookUid: string; receivedAt: string }[],
): Promise<void> => {
  if (refused.length > 0) await statsQueries(t).refusals(refused).execute(db);
};
