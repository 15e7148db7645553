import { AgentRunError } from '../errors.js';
import type { KeyUsage } from '../keys/key-usage.js';
import type { ApiKeyCreator, ApiKeyRecord, ApiKeyStore } from '../store/api-keys.js';
import { type Clock, isoTime, systemClock } from '../util/clock.js';
import { sha256Hex } from '../util/hash.js';
import { newId, randomToken } from '../util/ids.js';
import type { Principal } from './principal.js';

/** Resolves a request to a principal, or `null`/`undefined` when it carries no valid credential. */
export type Authenticate = (request: Request) => Promise<Principal | null | undefined> | Principal | null | undefined;

const KEY_PREFIX = 'ar_';

/** The shortest key a host may choose (`ApiKeyOptions.key`); a minted one is far longer. */
export const MIN_API_KEY_LENGTH = 16;

/** What a key may carry besides its principal (docs/operations.md, "API keys"). */
export interface ApiKeyOptions {
  /** The key itself; default: `ar_` and 32 random bytes. At least `MIN_API_KEY_LENGTH` (16) characters. */
  key?: string;
  clock?: Clock;
  name?: string;
  /** Default: none given, the key keeps the powers of its principal (keys/scopes.ts). */
  scopes?: readonly string[];
  expiresAt?: string;
  createdBy?: ApiKeyCreator;
  /** Default: a new UUID. */
  id?: string;
}

/** Mint a key and store its hash: the key is in the answer and nowhere else. */
export async function mintApiKey(
  store: ApiKeyStore,
  principal: Principal,
  options: ApiKeyOptions = {},
): Promise<{ key: string; record: ApiKeyRecord }> {
  const key = options.key ?? KEY_PREFIX + randomToken(32);
  if (key.length < MIN_API_KEY_LENGTH) {
    throw new AgentRunError('invalid_request', `an API key must be at least ${MIN_API_KEY_LENGTH} characters`);
  }
  const record: ApiKeyRecord = {
    id: options.id ?? newId(),
    hash: sha256Hex(key),
    prefix: key.slice(0, 8),
    name: options.name ?? '',
    principal,
    createdBy: options.createdBy ?? null,
    scopes: options.scopes ? [...options.scopes] : null,
    createdAt: isoTime((options.clock ?? systemClock).now()),
    expiresAt: options.expiresAt ?? null,
    revokedAt: null,
    lastUsedAt: null,
  };
  await store.create(record);
  return { key, record };
}

/** Mint a new API key for `principal`. The key is returned once; only its hash is stored. */
export async function createApiKey(store: ApiKeyStore, principal: Principal, options: ApiKeyOptions = {}): Promise<string> {
  return (await mintApiKey(store, principal, options)).key;
}

/** `Authorization: Bearer <key>` → the key, or `undefined`. */
export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get('authorization');
  if (!header) return undefined;
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * Whether a stored key may be used at `nowMs`: not revoked, not expired. Read from the store on
 * every request (no cache), so a revocation in any process holds at once in every other one.
 */
const keyIsLive = (record: ApiKeyRecord, nowMs: number): boolean =>
  record.revokedAt === null && (record.expiresAt === null || Date.parse(record.expiresAt) > nowMs);

/** The principal a request made with this key acts as: its scopes ride along for the route guard. */
const keyPrincipal = (record: ApiKeyRecord): Principal =>
  record.scopes === null ? record.principal : { ...record.principal, scopes: record.scopes };

/**
 * The default authenticator: looks up the SHA-256 of the bearer key. Looking up by a hash of a
 * 256-bit random key leaks nothing a timing attack could use, so no string compare is needed.
 * A use is noted in memory (`usage`) and written in batches, never once per request.
 */
export function apiKeyAuthenticator(store: ApiKeyStore, options: { clock?: Clock; usage?: KeyUsage } = {}): Authenticate {
  const clock = options.clock ?? systemClock;
  return async (request) => {
    const key = bearerToken(request);
    if (!key || key.length > 512) return undefined;
    const record = await store.findByHash(sha256Hex(key));
    const now = clock.now();
    if (!record || !keyIsLive(record, now)) return undefined;
    options.usage?.note(record.hash, now);
    return keyPrincipal(record);
  };
}
