import { parseOrThrow } from '../models/validate.js';
import { statsWindow } from '../stats/buckets.js';
import { STATS_RANGES, type StatsRange } from '../stats/ranges.js';
import { callbackStatsView, deliveryStatsView, queueStatsView, runDurationStatsView, runStatsView } from '../stats/views.js';
import { DeliveryStatsQuerySchema, RunDurationStatsQuerySchema, StatsRangeQuerySchema } from '../stats/wire.js';
import type { Store } from '../store/store.js';
import { type Clock, isoTime } from '../util/clock.js';
import type { OperationHandlers } from './operation.js';
import { queryObject } from './query.js';
import { jsonResponse } from './responses.js';

type StatsOperation = 'getRunStats' | 'getRunDurationStats' | 'getDeliveryStats' | 'getQueueStats' | 'getCallbackStats';

/** The stats routes (docs/management-api.md, "Stats"): one store read each, the caller's team only. */
export function statsOperations(store: Store, clock: Clock): OperationHandlers<StatsOperation> {
  /** The window of `range` ending with the bucket that holds now, and the store's span of it. */
  const at = (range: StatsRange, teamUid: string) => {
    const window = statsWindow(range, clock.now());
    return {
      window,
      span: { teamUid, from: isoTime(window.fromMs), to: isoTime(window.toMs), stepSeconds: STATS_RANGES[range].stepSeconds },
    };
  };
  return {
    getRunStats: async ({ principal, url }) => {
      const { range } = parseOrThrow(StatsRangeQuerySchema, queryObject(url), 'query');
      const { window, span } = at(range, principal.team_uid);
      return jsonResponse(runStatsView(range, window, await store.stats.runs(span)));
    },
    getRunDurationStats: async ({ principal, url }) => {
      const { range, by } = parseOrThrow(RunDurationStatsQuerySchema, queryObject(url), 'query');
      const { window, span } = at(range, principal.team_uid);
      return jsonResponse(runDurationStatsView(range, window, by, await store.stats.runDurations({ ...span, by })));
    },
    getDeliveryStats: async ({ principal, url }) => {
      const { range, webhook_uid } = parseOrThrow(DeliveryStatsQuerySchema, queryObject(url), 'query');
      const { window, span } = at(range, principal.team_uid);
      const webhooks = await store.stats.deliveries(webhook_uid === undefined ? span : { ...span, webhookUid: webhook_uid });
      return jsonResponse(deliveryStatsView(range, window, webhooks));
    },
    getQueueStats: async ({ principal }) => jsonResponse(queueStatsView(await store.stats.queue(principal.team_uid))),
    getCallbackStats: async ({ principal, url }) => {
      const { range } = parseOrThrow(StatsRangeQuerySchema, queryObject(url), 'query');
      const { window, span } = at(range, principal.team_uid);
      return jsonResponse(callbackStatsView(range, window, await store.stats.callbacks(span)));
    },
  };
}
