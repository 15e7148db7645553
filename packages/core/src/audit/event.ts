import type { Principal } from '../auth/principal.js';
import type { Store } from '../store/store.js';
import { isoTime } from '../util/clock.js';
import { newOrderedId } from '../util/ids.js';
import type { AuditDetail, AuditEventKind, AuditEventRecord } from './records.js';

/** What an audit event is about. */
export interface AuditTarget {
  type: string;
  id: string;
  factoryUid?: string | null;
}

/**
 * The audit event of one control-plane change by `p`, stamped `now`. A store write takes it as its
 * `audit` argument and commits it with the change, in one transaction (docs/operations.md, "Audit").
 */
export function auditEvent(
  p: Principal,
  kind: AuditEventKind,
  target: AuditTarget,
  now: number | string,
  detail: AuditDetail = {},
): AuditEventRecord {
  return {
    // Time-ordered: two events of one millisecond list in the order they were made.
    id: newOrderedId(),
    teamUid: p.team_uid,
    at: typeof now === 'string' ? now : isoTime(now),
    kind,
    actorType: p.type,
    actorId: p.uid,
    targetType: target.type,
    targetId: target.id,
    factoryUid: target.factoryUid ?? null,
    detail: { ...detail },
  };
}

/**
 * Record an event on its own, for a change whose store write does not take an `audit` argument
 * yet (API keys: `await recordAuditEvent(store, principal, 'api_key.created', { type: 'api_key', id: prefix })`).
 * Prefer passing the event to the write itself, so change and event commit together.
 */
export async function recordAuditEvent(
  store: Pick<Store, 'audit'>,
  p: Principal,
  kind: AuditEventKind,
  target: AuditTarget,
  detail: AuditDetail = {},
  now: number = Date.now(),
): Promise<AuditEventRecord> {
  const event = auditEvent(p, kind, target, now, detail);
  await store.audit.record(event);
  return event;
}
