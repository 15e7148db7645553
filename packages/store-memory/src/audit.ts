import type { AuditEventRecord, AuditPosition, AuditRange, AuditStore, DeliveryRecord } from '@agentrun/core/store';
import { copy } from './copy.js';

/** Newest first: by time, then id (code-point order, as the PostgreSQL store's "C" collation). */
const newestFirst = (a: AuditPosition, b: AuditPosition) =>
  a.at !== b.at ? (a.at < b.at ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;

const inRange = (p: AuditPosition, q: AuditRange) =>
  (q.since === undefined || p.at >= q.since) &&
  (q.until === undefined || p.at < q.until) &&
  (q.after === undefined || p.at < q.after.at || (p.at === q.after.at && p.id < q.after.id));

/**
 * The audit log in memory (docs/operations.md, "Audit"). `append` is what the control-plane writes
 * call, in the same synchronous step as their change, so an event exists exactly when its change
 * does; `deliveryLog` reads the ingress's entries, which the audit log serves as ingress outcomes.
 */
export function createMemoryAudit(deliveryLog: () => Iterable<DeliveryRecord>): {
  audit: AuditStore;
  append(event: AuditEventRecord | undefined): void;
} {
  const events: AuditEventRecord[] = [];
  const append = (event: AuditEventRecord | undefined) => {
    if (event) events.push(copy(event));
  };
  return {
    append,
    audit: {
      async record(event) {
        append(event);
      },
      async list(teamUid, q) {
        return events
          .filter(
            (e) =>
              e.teamUid === teamUid &&
              (q.kinds === undefined || q.kinds.includes(e.kind)) &&
              (q.actorId === undefined || e.actorId === q.actorId) &&
              (q.targetId === undefined || e.targetId === q.targetId) &&
              inRange(e, q),
          )
          .sort(newestFirst)
          .slice(0, q.limit)
          .map(copy);
      },
      async deliveries(teamUid, q) {
        return [...deliveryLog()]
          .filter(
            (d) =>
              d.teamUid === teamUid &&
              (q.statuses === undefined || q.statuses.includes(d.status)) &&
              (q.webhookUid === undefined || d.webhookUid === q.webhookUid) &&
              inRange({ at: d.receivedAt, id: d.id }, q),
          )
          .sort((a, b) => newestFirst({ at: a.receivedAt, id: a.id }, { at: b.receivedAt, id: b.id }))
          .slice(0, q.limit)
          .map(({ request: _request, runIds: _runIds, ...d }) => ({ ...d, payload: null }));
      },
      async sweep(olderThan) {
        const before = events.length;
        const kept = events.filter((e) => e.at >= olderThan);
        events.splice(0, events.length, ...kept);
        return before - kept.length;
      },
    },
  };
}
