import type { AuditEventKind, AuditEventRecord } from '../audit/records.js';
import type { DeliveryRecord, DeliveryStatus } from '../ingress/records.js';

// The audit part of the Store port (docs/stores.md, "The shape of the interface"; docs/operations.md,
// "Audit"). Control-plane writes take their event as an `audit` argument and commit it in the same
// transaction; this part reads the log back, team by team, and prunes it. Ingress outcomes are not
// written here: `deliveries` reads them from the delivery log, so the accept path writes nothing more.

/** A keyset position: newest first by `at`, then `id` (code-point order). */
export interface AuditPosition {
  at: string;
  id: string;
}

/** Filters shared by both reads; `since` is inclusive, `until` exclusive. */
export interface AuditRange {
  since?: string;
  until?: string;
  after?: AuditPosition;
  limit: number;
}

export interface AuditQuery extends AuditRange {
  /** Any of these kinds; absent: every kind. */
  kinds?: readonly AuditEventKind[];
  actorId?: string;
  targetId?: string;
}

export interface AuditDeliveryQuery extends AuditRange {
  /** Any of these statuses; absent: every status. */
  statuses?: readonly DeliveryStatus[];
  webhookUid?: string;
}

export interface AuditStore {
  /** Store one event on its own (a write that takes `audit` stores it with the change instead). */
  record(event: AuditEventRecord): Promise<void>;
  /** The team's events, newest first (by `at`, then `id`), after the keyset position. */
  list(teamUid: string, query: AuditQuery): Promise<AuditEventRecord[]>;
  /** The team's delivery-log entries, newest first (by `receivedAt`, then `id`), metadata only: no payload, request or runs. */
  deliveries(teamUid: string, query: AuditDeliveryQuery): Promise<DeliveryRecord[]>;
  /** Retention: delete events before `olderThan`; returns how many went. */
  sweep(olderThan: string): Promise<number>;
}
