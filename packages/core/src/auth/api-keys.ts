import { AgentRunError } from '../errors.js';
import type { ApiKeyStore } from '../store/api-keys.js';
import { type Clock, isoTime, systemClock } from '../util/clock.js';
import { sha256Hex } from '../util/hash.js';
import { randomToken } from '../util/ids.js';
import type { Principal } from './principal.js';

/** Resolves a request to a principal, or `null`/`undefined` when it carries no valid credential. */
export type Authenticate = (request: Request) => Promise<Principal | null | undefined> | Principal | null | undefined;

const KEY_PREFIX = 'ar_';

/** Mint a new API key for `principal`. The key is returned once; only its hash is stored. */
export async function createApiKey(
  store: ApiKeyStore,
  principal: Principal,
  options: { key?: string; clock?: Clock } = {},
): Promise<string> {
  const key = options.key ?? KEY_PREFIX + randomToken(32);
  if (key.length < 16) throw new AgentRunError('invalid_request', 'an API key must be at least 16 characters');
  await store.create({
    hash: sha256Hex(key),
    prefix: key.slice(0, 8),
    principal,
    createdAt: isoTime((options.clock ?? systemClock).now()),
  });
  return key;
}

/** `Authorization: Bearer <key>` → the key, or `undefined`. */
export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get('authorization');
  if (!header) return undefined;
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * The default authenticator: looks up the SHA-256 of the bearer key. Looking up by a hash of a
 * 256-bit random key leaks nothing a timing attack could use, so no string compare is needed.
 */
export function apiKeyAuthenticator(store: ApiKeyStore): Authenticate {
  return async (request) => {
    const key = bearerToken(request);
    if (!key || key.length > 512) return undefined;
    return (await store.findByHash(sha256Hex(key)))?.principal;
  };
}
