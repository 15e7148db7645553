import * as v from 'valibot';
import { PageInfoSchema } from '../models/run.js';
import { AUDIT_EVENT_KINDS, type AuditEventRecord } from './records.js';

/** An audit event as the management API shows it (docs/management-api.md, "The audit log"). */
export const AuditEventViewSchema = v.object({
  id: v.string(),
  kind: v.picklist(AUDIT_EVENT_KINDS),
  at: v.string(),
  actor: v.object({ type: v.string(), id: v.string() }),
  target: v.object({ type: v.string(), id: v.string() }),
  factory_uid: v.nullable(v.string()),
  detail: v.record(v.string(), v.union([v.string(), v.number(), v.boolean(), v.null()])),
});
export type AuditEventView = v.InferOutput<typeof AuditEventViewSchema>;

export const AuditListSchema = v.object({ events: v.array(AuditEventViewSchema), page_info: PageInfoSchema });

export const auditEventView = (e: AuditEventRecord): AuditEventView => ({
  id: e.id,
  kind: e.kind,
  at: e.at,
  actor: { type: e.actorType, id: e.actorId },
  target: { type: e.targetType, id: e.targetId },
  factory_uid: e.factoryUid,
  detail: { ...e.detail },
});
