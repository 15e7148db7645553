import type { AutomationRecord, SecretRecord, WebhookRecord } from '../control/records.js';
import type { DeliveryRecord } from '../ingress/records.js';
import type { AutomationStore } from './control-plane.js';
import type { CreateRunInput } from './runs.js';

// The ingress part of the Store port (docs/stores.md, "The shape of the interface"): the delivery
// log and the rate-limit windows, each delivery one read and one write.

/**
 * A sliding-window admission made in the same step as the write it guards: when the window of
 * `key` already holds `limit` events in `(now - windowMs, now]`, nothing is written and the
 * refusal says when a slot frees; otherwise the event counts and the write happens. Exact at the
 * boundary, also across processes sharing the store (as {@link RateLimitStore.admit}).
 */
export interface RateAdmission {
  key: string;
  limit: number;
  windowMs: number;
  now: string;
}

export type RateRefusal = { rateLimited: true; retryAfterMs: number };

export type AcceptDeliveryResult = { accepted: true } | { accepted: false; duplicateOf: string } | ({ accepted: false } & RateRefusal);

/**
 * Everything the ingress reads about one webhook to judge a delivery, in one step (one round trip
 * on a database): checks 1 to 3 of docs/webhooks.md ("Answers, log labels and limits") need
 * nothing else. The automations are read by the evaluation, after the 202 ({@link DeliveryStore.selections}).
 */
export interface DeliveryContext {
  /** Deleted and disabled ones included: the caller decides. */
  webhook: WebhookRecord;
  /** The webhook's secret (sealed), if it has one. */
  secret: SecretRecord | undefined;
  /** The failed-auth budget's window (the events under `authBudgetKey`), as {@link RateLimitStore.peek} counts it. */
  authFailures: { count: number; retryAfterMs: number };
}

/**
 * An accepted delivery awaiting evaluation, as claimed: its payload is set, and read-only (a store
 * may hand out the bytes it holds rather than a copy; the evaluation only reads them).
 */
export type PendingDelivery = DeliveryRecord & { payload: Uint8Array };

/** A webhook and the enabled automations selecting it (see {@link DeliveryStore.selections}). */
export interface WebhookSelection {
  /** Deleted and disabled ones included: the caller decides. */
  webhook: WebhookRecord;
  /** As {@link AutomationStore.listForWebhook}: enabled automations selecting the webhook, oldest first. */
  automations: AutomationRecord[];
}

/** The runs one evaluated delivery starts (none: evaluated, nothing matched). */
export interface DeliveryEvaluation {
  deliveryId: string;
  runs: readonly CreateRunInput[];
}

export interface DeliveryStore {
  /** The {@link DeliveryContext} of a webhook, or `undefined` when no webhook has this UID. */
  context(input: { webhookUid: string; authBudgetKey: string; windowMs: number; now: string }): Promise<DeliveryContext | undefined>;
  /**
   * In one transaction: first the `admit` admission if given (refused: nothing else happens);
   * then, unless an `Accepted` delivery of this webhook has this identity, store the delivery
   * (`Accepted`, with its payload); otherwise store the entry as `Duplicate` (no payload) and
   * create nothing. Two racing identical deliveries: one is accepted.
   *
   * Without `runs` (the ingress) the accepted delivery is left for evaluation
   * ({@link claimEvaluations}) and the store signals it (a `delivery.accepted` notification); with
   * `runs` (a resend, which answers with its runs) they are created in the same step and the
   * delivery is evaluated already.
   */
  accept(input: { delivery: DeliveryRecord; runs?: readonly CreateRunInput[]; admit?: RateAdmission }): Promise<AcceptDeliveryResult>;
  /**
   * Lease up to `limit` accepted deliveries not yet evaluated whose lease is free (never leased,
   * or expired by `now`), oldest first, until `now + leaseMs`; each is returned with its payload.
   * Concurrent claimers never get the same delivery while its lease holds (SKIP LOCKED on a
   * database); a process that dies holding one leaves it to be claimed again once the lease ends.
   */
  claimEvaluations(input: { limit: number; leaseMs: number; now: string }): Promise<PendingDelivery[]>;
  /**
   * In one transaction, for each delivery still not evaluated: create its runs and mark it
   * evaluated. A delivery evaluated already (by another claimer whose lease had run out, or swept)
   * is skipped and none of its runs is created, so a delivery's runs are created once whatever the
   * timing. Returns the IDs of the deliveries this call evaluated. The runs are handed over: a
   * store may keep the very records and attachments given (the memory store does, where every
   * attachment is the delivery's stored payload), so the caller neither changes nor hands them
   * out afterwards.
   */
  completeEvaluations(evaluations: readonly DeliveryEvaluation[]): Promise<string[]>;
  /**
   * What evaluating deliveries to these webhooks reads, as it is now, in one step: each webhook
   * that exists (deleted and disabled ones included: the caller decides) with the enabled
   * automations selecting it, as {@link AutomationStore.listForWebhook}. Webhooks with no record
   * are left out. An automation selects only webhooks of its own factory (core checks each one
   * saved), so a store may look for them among the enabled automations of the webhooks' factories.
   */
  selections(webhookUids: readonly string[]): Promise<WebhookSelection[]>;
  /** A rejected entry (metadata only), after the `admit` admission if given (refused: not logged). */
  log(entry: DeliveryRecord, admit?: RateAdmission): Promise<{ logged: true } | ({ logged: false } & RateRefusal)>;
  /** A webhook's log, newest first (by `receivedAt`, then id), after the keyset position. */
  list(teamUid: string, webhookUid: string, page: { limit: number; after?: { receivedAt: string; id: string } }): Promise<DeliveryRecord[]>;
  get(teamUid: string, webhookUid: string, id: string): Promise<DeliveryRecord | undefined>;
  /** An entry of the team by its id alone, whichever webhook it came to (a deleted one too). */
  find(teamUid: string, id: string): Promise<DeliveryRecord | undefined>;
  /**
   * Retention: delete entries received before `olderThan`, except each webhook's newest
   * `keepNewest`. Never deletes an entry inside either window. Returns how many went.
   */
  sweep(olderThan: string, keepNewest: number): Promise<number>;
}

export interface RateLimitStore {
  /** Events counted for `key` in the window `(now - windowMs, now]`, and when the oldest leaves it. */
  peek(input: { key: string; windowMs: number; now: string }): Promise<{ count: number; retryAfterMs: number }>;
  /**
   * Count one event if fewer than `limit` are in the window; otherwise refuse, saying when a slot
   * frees. Exact at the boundary, also across processes sharing the store.
   */
  admit(input: {
    key: string;
    limit: number;
    windowMs: number;
    now: string;
  }): Promise<{ allowed: true } | { allowed: false; retryAfterMs: number }>;
}
