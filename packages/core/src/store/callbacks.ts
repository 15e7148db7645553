import type { AuditEventRecord } from '../audit/records.js';
import type {
  CallbackAttemptRecord,
  CallbackDeliveryRecord,
  CallbackDeliveryStatus,
  CallbackDeliveryWithAttempts,
  CallbackDisabledReason,
  CallbackEndpointRecord,
  CallbackEventType,
} from '../callbacks/records.js';

// The run-state callbacks part of the Store port (docs/stores.md; docs/callbacks.md). The outbox is
// written by the runs' own writes: every write that creates a run or changes its state adds, in the
// same transaction (Postgres: a trigger; memory: the same synchronous step), one
// delivery per enabled endpoint that wants the event (`endpointWants`, callbacks/records.ts).

export type CreateCallbackResult = { created: true } | { created: false; reason: 'limit' };

export interface CallbackEndpointPatch {
  url?: string;
  description?: string;
  eventTypes?: CallbackEventType[];
  enabled?: boolean;
  disabledReason?: CallbackDisabledReason | null;
  secretCiphertext?: string;
  /** Cleared by a re-enable, so the failing rule starts over. */
  failingSince?: string | null;
}

/** A due delivery leased to one dispatcher, with what sending it needs. */
export interface ClaimedCallback {
  delivery: CallbackDeliveryRecord;
  url: string;
  secretCiphertext: string;
}

export interface ClaimCallbacksInput {
  now: string;
  limit: number;
  /** Until when the claim holds: a process that dies mid-send leaves the delivery to be claimed again then. */
  claimUntil: string;
}

export interface RecordCallbackAttemptInput {
  attempt: CallbackAttemptRecord;
  /**
   * The `claimUntil` of the claim this attempt was made under: the write applies only while the
   * delivery still holds it, so a dispatcher whose claim lapsed (and was taken by another) logs nothing.
   */
  claimedUntil: string;
  /** What the delivery becomes. */
  status: CallbackDeliveryStatus;
  nextAttemptAt: string | null;
  now: string;
  /** The endpoint after this attempt: its `failing_since`, and whether the failing rule disables it now. */
  endpoint: { failingSince: string | null; disable: boolean };
}

export interface CallbackStore {
  /** Insert an endpoint unless the team already has `maxPerTeam`. */
  createEndpoint(record: CallbackEndpointRecord, maxPerTeam: number, audit?: AuditEventRecord): Promise<CreateCallbackResult>;
  getEndpoint(teamUid: string, id: string): Promise<CallbackEndpointRecord | undefined>;
  /** Oldest first. */
  listEndpoints(teamUid: string): Promise<CallbackEndpointRecord[]>;
  /** `updatedAt` set to `now`; `undefined` if there is none. */
  updateEndpoint(
    teamUid: string,
    id: string,
    patch: CallbackEndpointPatch,
    now: string,
    audit?: AuditEventRecord,
  ): Promise<CallbackEndpointRecord | undefined>;
  /** With its deliveries and their attempts; whether it was there. */
  deleteEndpoint(teamUid: string, id: string, audit?: AuditEventRecord): Promise<boolean>;
  /**
   * Lease up to `limit` pending deliveries due at `now` (of enabled endpoints, not leased by
   * another dispatcher), by due time. Concurrent claims never get one delivery.
   */
  claimDue(input: ClaimCallbacksInput): Promise<ClaimedCallback[]>;
  /** Log an attempt and move the delivery on, if it is still pending under this claim; whether it was. */
  recordAttempt(input: RecordCallbackAttemptInput): Promise<boolean>;
  /** An endpoint's deliveries, newest first, `before` a `seq`, each with its attempts. */
  listDeliveries(teamUid: string, endpointId: string, page: { before?: number; limit: number }): Promise<CallbackDeliveryWithAttempts[]>;
  getDelivery(teamUid: string, endpointId: string, deliveryId: string): Promise<CallbackDeliveryWithAttempts | undefined>;
  /**
   * Send a logged delivery again (a new window, due now, the same `webhook-id`): `pending` when it
   * still is (nothing changed), `absent` when there is none.
   */
  resend(
    teamUid: string,
    endpointId: string,
    deliveryId: string,
    now: string,
    audit?: AuditEventRecord,
  ): Promise<'resent' | 'pending' | 'absent'>;
  /**
   * Every team's endpoints after `afterId`, by id (code-point order), at most `limit`: the key
   * rotation's re-seal walks them in pages (maintenance/reseal-secrets.ts).
   */
  scanEndpoints(afterId: string | undefined, limit: number): Promise<CallbackEndpointRecord[]>;
  /** Replace an endpoint's sealed secret only if it is still `expected` (compare-and-set), keeping `updatedAt`. */
  resealEndpoint(id: string, expected: string, ciphertext: string): Promise<boolean>;
  /** Delete finished deliveries last changed before `before`; how many. */
  sweep(before: string): Promise<number>;
}
