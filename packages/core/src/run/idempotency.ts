import type { Principal } from '../auth/principal.js';
import { AgentRunError } from '../errors.js';
import type { IdempotencyRecord, IdempotencyStore, IdempotencyWrite } from '../store/idempotency.js';

/** What a caller sends with a write: the `Idempotency-Key` and a fingerprint of the request. */
export interface IdempotencyContext {
  key: string;
  /** Hash of method, path and canonical body (see `requestFingerprint`). */
  fingerprint: string;
}

/** A write's response, as first given or as replayed for a repeated key. */
export interface WriteResult<T> {
  status: number;
  body: T;
  replayed: boolean;
}

export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Keys are per principal: the same key from two callers is two keys. */
export const idempotencyScope = (p: Principal): string => `${encodeURIComponent(p.team_uid)}/${encodeURIComponent(p.uid)}`;

/** A stored record answering this request: its response, or a 409 if the request differs. */
export function replay<T>(record: IdempotencyRecord, fingerprint: string): WriteResult<T> {
  if (record.fingerprint !== fingerprint) {
    throw new AgentRunError(
      'idempotency_conflict',
      'this Idempotency-Key was already used with a different request; use a new key for a new request',
    );
  }
  return { status: record.status, body: record.body as T, replayed: true };
}

/**
 * Answer a repeated key before doing any work: with the response first given (the run may have
 * changed since), or a 409 if the request differs; `undefined` for a key not seen (or expired).
 */
export async function lookupReplay<T>(
  store: IdempotencyStore,
  principal: Principal,
  ctx: IdempotencyContext | undefined,
  now: string,
): Promise<WriteResult<T> | undefined> {
  if (!ctx) return undefined;
  const record = await store.get(idempotencyScope(principal), ctx.key, now);
  return record ? replay<T>(record, ctx.fingerprint) : undefined;
}

export function idempotencyWrite<R>(
  principal: Principal,
  ctx: IdempotencyContext | undefined,
  now: number,
  ttlMs: number,
  respond: (result: R) => { status: number; body: unknown },
): IdempotencyWrite<R> | undefined {
  if (!ctx) return undefined;
  return {
    scope: idempotencyScope(principal),
    key: ctx.key,
    fingerprint: ctx.fingerprint,
    now: new Date(now).toISOString(),
    expiresAt: new Date(now + ttlMs).toISOString(),
    respond,
  };
}
