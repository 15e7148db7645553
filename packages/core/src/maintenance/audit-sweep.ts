import type { Store } from '../store/store.js';
import { isoTime } from '../util/clock.js';
import type { MaintenanceTask } from './maintenance.js';

/**
 * How long audit events are kept by default, and how often the old ones are deleted
 * (docs/operations.md, "Audit"; the `auditRetentionMs` option of createAgentRun). Ingress outcomes
 * are the delivery log's entries and follow its retention instead.
 */
export const AUDIT_RETENTION = { maxAgeMs: 90 * 24 * 60 * 60 * 1000, sweepEveryMs: 60 * 60 * 1000 } as const;

/** The maintenance task that deletes audit events older than `maxAgeMs`. */
export const auditSweepTask = (store: Store, maxAgeMs: number = AUDIT_RETENTION.maxAgeMs): MaintenanceTask => ({
  name: 'audit-sweep',
  everyMs: AUDIT_RETENTION.sweepEveryMs,
  run: (now) => store.audit.sweep(isoTime(now - maxAgeMs)),
});
