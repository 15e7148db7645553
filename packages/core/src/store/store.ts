import type { Principal } from '../auth/principal.js';
import type { AutomationRecord, FactoryRecord, SecretRecord, WebhookRecord } from '../control/records.js';
import type { DeliveryRecord } from '../ingress/records.js';
import type { RunState } from '../models/run-state.js';
import type { Notifications } from '../notify/notification.js';
import type { RunListQuery } from '../run/list-query.js';
import type { AttachmentRecord, FollowupRecord, RunLease, RunRecord } from '../run/record.js';

/**
 * The persistence port of agentrun. Each method is one whole use case, so a SQL store can make it
 * one atomic statement or transaction; core never composes several store calls into something
 * that must be atomic. Stores decide nothing about the domain: which state comes next is computed
 * by the state machine in core, and the store applies it only if the run still is as expected.
 *
 * Every method may be called concurrently. Returned objects belong to the caller (no aliasing of
 * store internals). All timestamps are RFC 3339 UTC strings with milliseconds.
 *
 * `@agentrun/core/testing` exports `describeStoreConformance`, which every store must pass.
 */
export interface Store {
  readonly runs: RunStore;
  readonly idempotency: IdempotencyStore;
  readonly apiKeys: ApiKeyStore;
  readonly factories: FactoryStore;
  readonly secrets: SecretStore;
  readonly webhooks: WebhookStore;
  readonly automations: AutomationStore;
  readonly deliveries: DeliveryStore;
  readonly rateLimits: RateLimitStore;
  /**
   * Optional: hear this store's writes from any process sharing it, published at commit for every
   * write that queues a run, changes its state or adds a follow-up (docs/stores.md,
   * "Notifications"). Without it, workers learn of other processes' writes by polling.
   */
  readonly notifications?: Notifications;
  /** Release connections and timers. */
  close?(): Promise<void>;
  /**
   * Whether `error` (thrown by this store) means the store cannot be reached for now: the
   * database is down, restarting or failing over. Such errors are answered 503 with
   * `Retry-After`, not 500 (docs/stores.md, "Outages").
   */
  isUnavailable?(error: unknown): boolean;
}

// ───────────────────────────────────────── idempotency

/** A stored first response, replayed for a repeated `Idempotency-Key`. */
export interface IdempotencyRecord {
  /** Who may replay it: team and principal. */
  scope: string;
  key: string;
  /** Hash of method, path and body; a different request under the same key is a conflict. */
  fingerprint: string;
  status: number;
  body: unknown;
  createdAt: string;
  expiresAt: string;
}

/**
 * Passed to a write so that the store records the response in the same transaction as the write.
 * If an unexpired record for (scope, key) already exists, the store performs no write and returns
 * `{ replayed: record }` instead. That makes concurrent requests with one key produce one effect.
 */
export interface IdempotencyWrite<T> {
  scope: string;
  key: string;
  fingerprint: string;
  /** Records at or past `expiresAt` count as absent. */
  now: string;
  expiresAt: string;
  /** The response to record for the write's result (pure; called inside the transaction). */
  respond(result: T): { status: number; body: unknown };
}

export type Idempotent<T> = { replayed: IdempotencyRecord; result?: undefined } | { replayed?: undefined; result: T };

/** A key held for a write that has no transaction of its own with the store (management POSTs). */
export interface IdempotencyReservation {
  scope: string;
  key: string;
  fingerprint: string;
  now: string;
  /** When the hold lapses if the holder never completes (it crashed): short, e.g. a minute. */
  expiresAt: string;
}

export interface IdempotencyStore {
  /** The unexpired, completed record for (scope, key), if any. */
  get(scope: string, key: string, now: string): Promise<IdempotencyRecord | undefined>;
  /**
   * Atomically hold (scope, key) with status 0 (in progress), taking over an expired record; or,
   * when an unexpired one exists (completed, or held by another request), return it unchanged.
   * Exactly one of several concurrent reservations of one key wins.
   */
  reserve(reservation: IdempotencyReservation): Promise<{ reserved: true } | { reserved: false; existing: IdempotencyRecord }>;
  /** Record the response of a held key, kept until `expiresAt`. */
  complete(scope: string, key: string, response: { status: number; body: unknown; expiresAt: string }): Promise<void>;
  /** Drop a held key whose write failed (failed requests are not remembered). Completed records stay. */
  release(scope: string, key: string): Promise<void>;
  /** Delete records that expired at or before `now`; returns how many. */
  purgeExpired(now: string): Promise<number>;
}

// ───────────────────────────────────────── runs

export interface CreateRunInput {
  run: RunRecord;
  attachments: readonly AttachmentRecord[];
  idempotency?: IdempotencyWrite<RunRecord>;
}

/** What the run must still be for a transition to apply. */
export interface RunExpectation {
  /** The state the run was read in. */
  state: RunState;
  /** For worker writes: the lease holder. The write applies only while this worker holds it. */
  workerId?: string;
  /** For lease recovery: apply only if the lease expired at or before this instant. */
  leaseExpiredBy?: string;
}

/** Fields a transition may change. `updatedAt` is not here: see `TransitionRunInput.now`. */
export interface RunPatch {
  state?: RunState;
  statusMessage?: RunRecord['statusMessage'];
  startedAt?: string | null;
  sessionId?: string | null;
  sessionLink?: string | null;
  lease?: RunLease | null;
  /** Reset to 0 when a follow-up re-queues a finished run (a fresh retry budget). */
  attempts?: number;
}

export interface TransitionRunInput {
  runId: string;
  /** When given, a run of another team is treated as absent. */
  teamUid?: string;
  expect: RunExpectation;
  patch: RunPatch;
  /** The store sets `updatedAt = max(now, updatedAt)`, so `updated_at` never goes backwards. */
  now: string;
  /** Appended in the same transaction (a follow-up message). */
  followup?: FollowupRecord;
  /** Recorded (with `respond(run after the write)`) only if the transition applies. */
  idempotency?: IdempotencyWrite<RunRecord>;
}

/** `applied: false` carries the run as it is now (`undefined` if it does not exist). */
export type TransitionOutcome = { applied: true; run: RunRecord } | { applied: false; run: RunRecord | undefined };

export interface ClaimRunInput {
  workerId: string;
  now: string;
  leaseExpiresAt: string;
}

export interface RenewLeaseInput {
  runId: string;
  workerId: string;
  now: string;
  leaseExpiresAt: string;
}

export interface RunStore {
  /** Insert a run with its attachments (and idempotency record) atomically. */
  create(input: CreateRunInput): Promise<Idempotent<RunRecord>>;

  /** One run; with `teamUid`, a run of another team is `undefined`. */
  get(runId: string, teamUid?: string): Promise<RunRecord | undefined>;

  /** A page in keyset order: at most `query.limit` runs matching the filter, after `query.after`. */
  list(query: RunListQuery): Promise<RunRecord[]>;

  /**
   * Compare-and-set: apply `patch` only if the run is in `expect.state` (and leased by
   * `expect.workerId` when given). Atomic with the follow-up and idempotency record it carries.
   */
  transition(input: TransitionRunInput): Promise<Idempotent<TransitionOutcome>>;

  /**
   * Lease the oldest `QUEUED` run (by `createdAt`, then id) to a worker: state `CLAIMED`,
   * `attempts + 1`, the lease set, `updatedAt` advanced. Two concurrent claims never get one run.
   */
  claimNext(input: ClaimRunInput): Promise<RunRecord | undefined>;

  /**
   * Extend the lease if `workerId` still holds it; returns the run as it is now either way
   * (`undefined` if it does not exist), so a worker also learns of a cancel. Does not touch
   * `updatedAt`: a heartbeat is not a change a caller can see.
   */
  renewLease(input: RenewLeaseInput): Promise<RunRecord | undefined>;

  /** Runs in a leased state whose lease expired at or before `now`, oldest first. */
  listExpiredLeases(now: string, limit: number): Promise<RunRecord[]>;

  /** Follow-ups of a run, oldest first. */
  listFollowups(runId: string): Promise<FollowupRecord[]>;

  /** One attachment's content, scoped to the team. */
  getAttachment(teamUid: string, runId: string, fileName: string): Promise<AttachmentRecord | undefined>;
}

// ───────────────────────────────────────── API keys

export interface ApiKeyRecord {
  /** SHA-256 (hex) of the key; the key itself is never stored. */
  hash: string;
  /** The first characters of the key, to tell keys apart in listings. */
  prefix: string;
  principal: Principal;
  createdAt: string;
}

export interface ApiKeyStore {
  create(record: ApiKeyRecord): Promise<void>;
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
}

// ───────────────────────────────────────── control plane: factories, secrets, webhooks, automations

export interface FactoryStore {
  /** A foreman identity belongs to one factory per team: a second throws `AgentRunError('conflict')`. */
  create(record: FactoryRecord): Promise<void>;
  get(teamUid: string, uid: string): Promise<FactoryRecord | undefined>;
  /** Oldest first. */
  list(teamUid: string): Promise<FactoryRecord[]>;
  /** The factory whose foreman has this agent identity, if any. */
  findByForeman(teamUid: string, agentIdentityUid: string): Promise<FactoryRecord | undefined>;
}

export interface SecretStore {
  /** Create or replace the value of a secret; `created` tells which. */
  put(record: SecretRecord): Promise<{ created: boolean }>;
  get(teamUid: string, name: string): Promise<SecretRecord | undefined>;
  /** By name. */
  list(teamUid: string): Promise<SecretRecord[]>;
  delete(teamUid: string, name: string): Promise<boolean>;
}

export interface CreateWebhookInput {
  webhook: WebhookRecord;
  /** A secret generated for this webhook, inserted with it (it must not exist yet). */
  secret?: SecretRecord;
  /** Live (not deleted) webhooks a factory may have; the insert is refused at the limit. */
  maxPerFactory: number;
}

export type CreateWebhookResult = { created: true } | { created: false; reason: 'limit' | 'secret_exists' };

export interface WebhookPatch {
  enabled?: boolean;
  deliveryIdHeader?: string | null;
  /** Set by a delete. */
  deletedAt?: string;
}

export interface WebhookStore {
  /** Atomically: check the factory's live webhooks are under the limit, insert the secret and the webhook. */
  create(input: CreateWebhookInput): Promise<CreateWebhookResult>;
  /** One webhook of a factory, deleted ones included. */
  get(teamUid: string, factoryUid: string, uid: string): Promise<WebhookRecord | undefined>;
  /** By UID alone, for the ingress (deleted ones included: the caller decides). */
  getByUid(uid: string): Promise<WebhookRecord | undefined>;
  /** A factory's live webhooks, oldest first. */
  list(teamUid: string, factoryUid: string): Promise<WebhookRecord[]>;
  /** Apply a patch to a live webhook; `undefined` if there is none. `updatedAt` is set to `now`. */
  update(teamUid: string, factoryUid: string, uid: string, patch: WebhookPatch, now: string): Promise<WebhookRecord | undefined>;
}

export interface AutomationStore {
  create(record: AutomationRecord): Promise<void>;
  get(teamUid: string, factoryUid: string, id: string): Promise<AutomationRecord | undefined>;
  /** Oldest first. */
  list(teamUid: string, factoryUid: string): Promise<AutomationRecord[]>;
  /** Replace a stored automation (same id); `false` if there is none. */
  replace(record: AutomationRecord): Promise<boolean>;
  delete(teamUid: string, factoryUid: string, id: string): Promise<boolean>;
  /**
   * Enabled automations with a trigger selecting this webhook (the ingress asks this per delivery).
   * A store may answer with frozen (immutable) snapshots rather than copies.
   */
  listForWebhook(webhookUid: string): Promise<AutomationRecord[]>;
}

// ───────────────────────────────────────── ingress: the delivery log and rate limits

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
 * on a database): checks 1 to 3 of contract §4 and the automations of step 9 need nothing else.
 */
export interface DeliveryContext {
  /** Deleted and disabled ones included: the caller decides. */
  webhook: WebhookRecord;
  /** The webhook's secret (sealed), if it has one. */
  secret: SecretRecord | undefined;
  /** The failed-auth budget's window (the events under `authBudgetKey`), as {@link RateLimitStore.peek} counts it. */
  authFailures: { count: number; retryAfterMs: number };
  /** As {@link AutomationStore.listForWebhook}: enabled automations selecting the webhook, oldest first. */
  automations: AutomationRecord[];
}

export interface DeliveryStore {
  /** The {@link DeliveryContext} of a webhook, or `undefined` when no webhook has this UID. */
  context(input: { webhookUid: string; authBudgetKey: string; windowMs: number; now: string }): Promise<DeliveryContext | undefined>;
  /**
   * In one transaction: first the `admit` admission if given (refused: nothing else happens);
   * then, unless an `Accepted` delivery of this webhook has this identity, store the delivery
   * (`Accepted`, with its payload) and create every run; otherwise store the entry as `Duplicate`
   * (no payload) and create nothing. Two racing identical deliveries: one is accepted.
   */
  accept(input: { delivery: DeliveryRecord; runs: readonly CreateRunInput[]; admit?: RateAdmission }): Promise<AcceptDeliveryResult>;
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
