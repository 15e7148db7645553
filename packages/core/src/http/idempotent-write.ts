import type { Principal } from '../auth/principal.js';
import type { SecretCipher } from '../control/secret-cipher.js';
import { AgentRunError, isAgentRunError } from '../errors.js';
import { type IdempotencyContext, idempotencyScope, replay } from '../run/idempotency.js';
import type { IdempotencyStore } from '../store/idempotency.js';
import { type Clock, isoTime } from '../util/clock.js';
import { jsonResponse } from './responses.js';

/**
 * `Idempotency-Key` for writes that have no transaction of their own with the store (the
 * management POSTs): the key is held first (one of several concurrent requests wins), the write
 * runs, and its response is recorded; a failed write releases the key, so it can be retried.
 * A repeat gets the first response with `idempotent-replayed: true`; the same key on another
 * request is a 409 `idempotency_conflict`; one still in progress is a retryable 409.
 *
 * A response that shows a secret once (a created or rotated webhook) is kept sealed with the
 * team-secret key, and replayed, to the same principal only, like the first answer
 * (docs/run-api.md, "Idempotency").
 */
export interface IdempotentWriteOptions {
  store: IdempotencyStore;
  cipher: SecretCipher;
  clock: Clock;
  ttlMs: number;
}

/** How long a key is held for a write in progress before another request may take it over. */
const HOLD_MS = 60_000;

export type IdempotentWrite = (
  principal: Principal,
  ctx: IdempotencyContext | undefined,
  write: () => Promise<{ status: number; body: unknown }>,
) => Promise<Response>;

export function idempotentWrites(options: IdempotentWriteOptions): IdempotentWrite {
  const { store, cipher, clock, ttlMs } = options;
  const slot = (scope: string, key: string) => `idempotency/${scope}/${key}`;
  const openKept = openerOf(cipher);

  return async (principal, ctx, write) => {
    if (!ctx) {
      const { status, body } = await write();
      return jsonResponse(body, status);
    }
    const scope = idempotencyScope(principal);
    const now = clock.now();
    const held = await store.reserve({
      scope,
      key: ctx.key,
      fingerprint: ctx.fingerprint,
      now: isoTime(now),
      expiresAt: isoTime(now + HOLD_MS),
    });
    if (!held.reserved) {
      const { existing } = held;
      if (existing.status === 0 && existing.fingerprint === ctx.fingerprint) {
        throw new AgentRunError('conflict', 'a request with this Idempotency-Key is still in progress; retry shortly', {
          retryable: true,
          headers: { 'retry-after': '1' },
        });
      }
      const first = replay<unknown>(existing, ctx.fingerprint);
      const body = isSealed(first.body) ? JSON.parse(await openKept(first.body.sealed, slot(scope, ctx.key))) : first.body;
      return jsonResponse(body, first.status, { 'idempotent-replayed': 'true' });
    }
    let result: { status: number; body: unknown };
    try {
      result = await write();
    } catch (error) {
      await store.release(scope, ctx.key).catch(() => {});
      throw error;
    }
    const kept = showsSecret(result.body) ? { sealed: await cipher.seal(JSON.stringify(result.body), slot(scope, ctx.key)) } : result.body;
    await store.complete(scope, ctx.key, { status: result.status, body: kept, expiresAt: isoTime(clock.now() + ttlMs) });
    return jsonResponse(result.body, result.status);
  };
}

const showsSecret = (body: unknown): boolean => typeof body === 'object' && body !== null && 'secret' in body;
/**
 * A kept answer sealed with a key this process no longer holds (removed after a rotation before the
 * key's replays expired, docs/operations.md "Rotating the secret key") cannot be replayed: a 409
 * that says so, not a 500. A missing key (503) stays a 503.
 */
function openerOf(cipher: SecretCipher) {
  return (sealed: string, where: string) =>
    cipher.open(sealed, where).catch((error: unknown) => {
      if (isAgentRunError(error)) throw error;
      throw new AgentRunError(
        'conflict',
        'the answer to the first request with this Idempotency-Key was sealed with a secret key this server no longer holds; it cannot be replayed',
      );
    });
}

const isSealed = (body: unknown): body is { sealed: string } =>
  typeof body === 'object' && body !== null && typeof (body as { sealed?: unknown }).sealed === 'string' && Object.keys(body).length === 1;
