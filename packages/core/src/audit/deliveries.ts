import type { DeliveryRecord, DeliveryStatus } from '../ingress/records.js';
import type { AuditEventKind, AuditEventRecord } from './records.js';

/**
 * Ingress outcomes as audit events, read from the delivery log (docs/operations.md, "Audit"): the
 * ingress writes one entry per delivery already, so the audit log adds no write to its path.
 * The actor is the sender, known only as the webhook it came to; the target is that webhook.
 */
const KIND_OF: Record<DeliveryStatus, AuditEventKind> = {
  Accepted: 'delivery.accepted',
  Duplicate: 'delivery.duplicate',
  'Rejected (auth)': 'delivery.rejected',
  'Rejected (invalid JSON)': 'delivery.rejected',
  'Rejected (too large)': 'delivery.rejected',
};

/** The delivery-log statuses of the given delivery kinds. */
export const statusesOf = (kinds: readonly AuditEventKind[]): DeliveryStatus[] =>
  (Object.keys(KIND_OF) as DeliveryStatus[]).filter((status) => kinds.includes(KIND_OF[status]));

/** One entry as an event: its id, time and status; never its payload or headers. */
export const deliveryAuditEvent = (d: DeliveryRecord): AuditEventRecord => ({
  id: d.id,
  teamUid: d.teamUid,
  at: d.receivedAt,
  kind: KIND_OF[d.status],
  actorType: 'webhook_sender',
  actorId: d.webhookUid,
  targetType: 'webhook',
  targetId: d.webhookUid,
  factoryUid: d.factoryUid,
  detail: { delivery_id: d.id, status: d.status, size: d.size },
});
