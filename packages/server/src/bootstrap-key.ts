import { API_KEY_SCOPES, createApiKey, type Principal, type Store } from '@agentrun/core';
import { sha256Hex } from '@agentrun/core/internal';

/**
 * The principal of the bootstrap key: a service account of the default team that may manage
 * factories and API keys (a principal without scopes has the run API and the management reads;
 * `permissions` adds the rest, keys/scopes.ts in core).
 */
export const BOOTSTRAP_PRINCIPAL: Principal = {
  type: 'service_account',
  uid: 'bootstrap',
  display_name: 'Bootstrap key',
  team_uid: 'team-default',
  permissions: ['manage_factory', 'manage_keys'],
};

/**
 * The bootstrap key's id and name: one id per store, so that however many servers start on it, and
 * however often, the store holds one bootstrap key (the store refuses a second record of an id).
 */
const BOOTSTRAP_KEY = { id: 'bootstrap', name: 'bootstrap' } as const;

/** The key AGENTRUN_API_KEY (`apiKey`) registers is named so in `keys list`. */
const GIVEN_KEY_NAME = 'AGENTRUN_API_KEY';

/** The bootstrap key of a start (docs/server.md): the key itself only when this start knows it. */
export type BootstrapKey =
  /** This start made it: shown this once. */
  | { source: 'made'; key: string }
  /** The host gave it (`apiKey`, AGENTRUN_API_KEY): registered on the first start that had it. */
  | { source: 'given'; key: string }
  /** An earlier start made it; only its prefix is kept. */
  | { source: 'kept'; prefix: string }
  /** It was made and then revoked: no start makes another (give `apiKey` instead). */
  | { source: 'revoked' };

/**
 * The store's bootstrap key, made once per store: a given key is registered once; without one, the
 * first start makes the key and later starts find it. Its scopes are all of them, the powers of
 * its principal, so `keys list` shows what it may do.
 */
export async function bootstrapKey(store: Store, given: string | undefined): Promise<BootstrapKey> {
  if (given !== undefined) return { source: 'given', key: await registerGiven(store, given) };
  const kept = await findMade(store);
  if (kept) return kept;
  try {
    return {
      source: 'made',
      key: await createApiKey(store.apiKeys, BOOTSTRAP_PRINCIPAL, { ...BOOTSTRAP_KEY, scopes: API_KEY_SCOPES }),
    };
  } catch {
    // Its id is taken: another server made it between our look and our insert, or it was revoked
    // (a revoked key keeps its record). Anything else fails the look again, and that error is thrown.
    return (await findMade(store)) ?? { source: 'revoked' };
  }
}

/** The bootstrap key an earlier start made, when it is not revoked. */
async function findMade(store: Store): Promise<BootstrapKey | undefined> {
  const record = (await store.apiKeys.list(BOOTSTRAP_PRINCIPAL.team_uid)).find((r) => r.id === BOOTSTRAP_KEY.id);
  return record ? { source: 'kept', prefix: record.prefix } : undefined;
}

/** A given key, registered once however many servers share the store (a second server, or a restart, finds it there). */
async function registerGiven(store: Store, key: string): Promise<string> {
  if (await store.apiKeys.findByHash(sha256Hex(key))) return key;
  try {
    return await createApiKey(store.apiKeys, BOOTSTRAP_PRINCIPAL, { key, name: GIVEN_KEY_NAME, scopes: API_KEY_SCOPES });
  } catch (error) {
    // Another server registered it between our look and our insert.
    if (await store.apiKeys.findByHash(sha256Hex(key))) return key;
    throw error;
  }
}
