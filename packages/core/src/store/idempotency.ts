// The idempotency part of the Store port (docs/stores.md, "The shape of the interface"): the
// records that replay a repeated `Idempotency-Key`, the write a run store records in its own
// transaction, and the reservations of writes that have none.

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
