/**
 * The audit log (docs/operations.md, "Audit"): who changed what in the control plane, and what the
 * ingress answered. The kinds are listed once here; the API's filter, the CLI and the dashboard
 * import this list.
 */
export const AUDIT_EVENT_KINDS = [
  'webhook.created',
  'webhook.updated',
  'webhook.toggled',
  'webhook.rotated',
  'webhook.deleted',
  'automation.created',
  'automation.updated',
  'automation.deleted',
  'secret.written',
  'secret.deleted',
  'definitions.applied',
  'environment.written',
  'environment.deleted',
  'agent_identity.written',
  'agent_identity.deleted',
  'schedule.created',
  'schedule.updated',
  'schedule.paused',
  'schedule.resumed',
  'schedule.deleted',
  'api_key.created',
  'api_key.revoked',
  'repository.created',
  'repository.deleted',
  // A stored delivery evaluated again on request (control/resend-delivery.ts).
  'delivery.resent',
  // Run-state callbacks (docs/callbacks.md).
  'callback.created',
  'callback.updated',
  'callback.rotated',
  'callback.deleted',
  'callback.resent',
  'source.written',
  'source.deleted',
  'source.applied',
  'source.failed',
  // Ingress outcomes: read from the delivery log, never written as audit rows (see audit/list.ts).
  'delivery.accepted',
  'delivery.duplicate',
  'delivery.rejected',
] as const;
export type AuditEventKind = (typeof AUDIT_EVENT_KINDS)[number];

/** The kinds served from the delivery log rather than stored as audit rows. */
export const DELIVERY_AUDIT_KINDS = ['delivery.accepted', 'delivery.duplicate', 'delivery.rejected'] as const;

/**
 * A small, safe detail: scalars only, never a secret, token, signature or payload body (the
 * recorders in audit/event.ts choose each field by name).
 */
export type AuditDetail = Readonly<Record<string, string | number | boolean | null>>;

/** One stored audit event. */
export interface AuditEventRecord {
  id: string;
  teamUid: string;
  /** When the change was made (RFC 3339 UTC, milliseconds). */
  at: string;
  kind: AuditEventKind;
  /** Who: the principal's type (`user`, `service_account`) and uid; for deliveries, the webhook. */
  actorType: string;
  actorId: string;
  /** What was changed: `webhook`, `automation`, `secret`, `definitions`, `api_key`. */
  targetType: string;
  targetId: string;
  /** The factory it belongs to, if any (secrets and keys belong to the team). */
  factoryUid: string | null;
  detail: AuditDetail;
}
