import { DEFAULT_HARNESS_NAME } from '../harness/harness-types.js';
import type { DeliveryStatus } from '../ingress/records.js';
import type { RunRecord } from '../run/record.js';
import type { DeliveryStatLabel, RunDurationGrouping } from './ranges.js';

/**
 * What a store counts each record under (docs/management-api.md, "Stats"), as one rule: the
 * memory store applies it as is, the PostgreSQL store's triggers spell it in SQL (0005_stats_rollups)
 * and the conformance suite holds them equal.
 */

/** The group of a run's duration: its harness (`oz` when it names none) or its config name (`""` when none). */
export const runDurationKey = (run: Pick<RunRecord, 'config'>, by: RunDurationGrouping): string =>
  by === 'harness' ? (run.config.harness?.type ?? DEFAULT_HARNESS_NAME) : (run.config.name ?? '');

/** A run's duration, ms: from its start to its last change (when it ended, for a run in a terminal state); 0 when the clock stepped back. */
export const runDurationMs = (run: Pick<RunRecord, 'startedAt' | 'updatedAt'>): number =>
  run.startedAt === null ? 0 : Math.max(0, Date.parse(run.updatedAt) - Date.parse(run.startedAt));

/** A logged delivery's label; `filteredOut`: it was evaluated and started no run. */
export const deliveryStatLabel = (status: DeliveryStatus, filteredOut: boolean): DeliveryStatLabel => {
  if (status === 'Accepted') return filteredOut ? 'Filtered out' : 'Accepted';
  if (status === 'Duplicate') return 'Duplicate';
  return 'Rejected';
};
