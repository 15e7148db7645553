import type { Principal } from '../auth/principal.js';
import { decodeDeliveryCursor, encodeDeliveryCursor } from '../control/delivery-views.js';
import { ListAuditQuerySchema } from '../models/list-queries.js';
import { parseOrThrow } from '../models/validate.js';
import type { AuditPosition } from '../store/audit.js';
import type { Store } from '../store/store.js';
import { keysetPage } from '../util/keyset-page.js';
import { deliveryAuditEvent, statusesOf } from './deliveries.js';
import { type AuditEventKind, type AuditEventRecord, DELIVERY_AUDIT_KINDS } from './records.js';
import { auditEventView } from './wire.js';

const isDeliveryKind = (k: AuditEventKind) => (DELIVERY_AUDIT_KINDS as readonly string[]).includes(k);

/** Newest first, then id descending: the one order of both sources and of the cursor. */
const newestFirst = (a: AuditPosition, b: AuditPosition) =>
  a.at !== b.at ? (a.at < b.at ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;

/**
 * The team's audit log, newest first, in keyset pages (docs/management-api.md, "The audit log"):
 * the stored control-plane events and the delivery log's entries merged into one order, by time
 * then id. Each source is read for `limit + 1` after the cursor, so the merged first `limit + 1`
 * are exact, and the cursor (the last shown position) means the same in both. Who may read it is
 * the route's scope, `manage_factory` (routes/scopes.ts).
 */
export async function listAudit(store: Store, p: Principal, input: Record<string, unknown>) {
  const q = parseOrThrow(ListAuditQuerySchema, input, 'query');
  const cursor = q.cursor === undefined ? undefined : decodeDeliveryCursor(q.cursor);
  const range = {
    limit: q.limit + 1,
    ...(q.since !== undefined ? { since: q.since } : {}),
    ...(q.until !== undefined ? { until: q.until } : {}),
    ...(cursor ? { after: { at: cursor.receivedAt, id: cursor.id } } : {}),
  };
  const kinds = q.kind === undefined ? undefined : [...new Set(q.kind)];
  const controlKinds = kinds?.filter((k) => !isDeliveryKind(k));
  const deliveryKinds = kinds?.filter(isDeliveryKind);
  // A delivery's actor and target are both its webhook: two different ids match none.
  const webhookUid = q.actor ?? q.target;
  const deliveriesMatch = q.actor === undefined || q.target === undefined || q.actor === q.target;

  const [control, deliveries] = await Promise.all([
    controlKinds?.length === 0
      ? []
      : store.audit.list(p.team_uid, {
          ...range,
          ...(controlKinds ? { kinds: controlKinds } : {}),
          ...(q.actor !== undefined ? { actorId: q.actor } : {}),
          ...(q.target !== undefined ? { targetId: q.target } : {}),
        }),
    deliveryKinds?.length === 0 || !deliveriesMatch
      ? []
      : store.audit.deliveries(p.team_uid, {
          ...range,
          ...(deliveryKinds ? { statuses: statusesOf(deliveryKinds) } : {}),
          ...(webhookUid !== undefined ? { webhookUid } : {}),
        }),
  ]);
  const merged: AuditEventRecord[] = [...control, ...deliveries.map(deliveryAuditEvent)].sort(newestFirst);
  const { page, pageInfo } = keysetPage(merged, q.limit, (last) => encodeDeliveryCursor({ receivedAt: last.at, id: last.id }));
  return { events: page.map(auditEventView), page_info: pageInfo };
}
