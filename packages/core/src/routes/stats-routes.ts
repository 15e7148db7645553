import type * as v from 'valibot';
import {
  CallbackStatsSchema,
  DeliveryStatsQuerySchema,
  DeliveryStatsSchema,
  QueueStatsSchema,
  RunDurationStatsQuerySchema,
  RunDurationStatsSchema,
  RunStatsSchema,
  StatsRangeQuerySchema,
} from '../stats/wire.js';
import { route } from './route.js';

// The stats routes (docs/management-api.md, "Stats"), joined into the route table (table.ts): one
// aggregate read per chart of the dashboard's overview, each over the caller's team only, in
// buckets aligned to the range's step (stats/buckets.ts).

const json = <S extends v.GenericSchema>(description: string, schema: S) => ({ description, schema });

export const STATS_ROUTES = {
  getRunStats: route({
    method: 'GET',
    area: 'api',
    path: '/stats/runs',
    auth: 'api_key',
    tag: 'stats',
    summary: 'Runs created in each bucket of the range (1h, 24h or 7d), counted under the state each is in now.',
    params: {},
    query: StatsRangeQuerySchema,
    responses: { 200: json('The counts, one series per run state.', RunStatsSchema) },
  }),
  getRunDurationStats: route({
    method: 'GET',
    area: 'api',
    path: '/stats/run-durations',
    auth: 'api_key',
    tag: 'stats',
    summary: 'p50 and p95 duration of the runs created in the range that have ended, by harness or by config name.',
    params: {},
    query: RunDurationStatsQuerySchema,
    responses: { 200: json('The groups, most runs first.', RunDurationStatsSchema) },
  }),
  getDeliveryStats: route({
    method: 'GET',
    area: 'api',
    path: '/stats/deliveries',
    auth: 'api_key',
    tag: 'stats',
    summary:
      'Deliveries received in each bucket of the range, per webhook, by label: Accepted, Filtered out, Duplicate, Rejected, Rate limited.',
    params: {},
    query: DeliveryStatsQuerySchema,
    responses: { 200: json('The counts, per webhook.', DeliveryStatsSchema) },
  }),
  getQueueStats: route({
    method: 'GET',
    area: 'api',
    path: '/stats/queue',
    auth: 'api_key',
    tag: 'stats',
    summary: "The team's queue now: how many runs wait, since when, by worker host, and how many run.",
    params: {},
    responses: { 200: json('The queue.', QueueStatsSchema) },
  }),
  getCallbackStats: route({
    method: 'GET',
    area: 'api',
    path: '/stats/callbacks',
    auth: 'api_key',
    tag: 'stats',
    summary: "Each callback endpoint's delivery attempts in the range: delivered, failed, and the last failure.",
    params: {},
    query: StatsRangeQuerySchema,
    responses: { 200: json('The endpoints, failing ones first.', CallbackStatsSchema) },
  }),
};
