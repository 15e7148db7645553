import type { Principal } from '../auth/principal.js';

// The API-key part of the Store port (docs/stores.md, "The shape of the interface"): keys are
// kept as hashes; `auth/api-keys.ts` hashes and checks them, `keys/` manages them.

/** Who minted a key (a copy of the creator's identity, kept when the creator goes). */
export interface ApiKeyCreator {
  type: Principal['type'];
  uid: string;
  display_name?: string;
}

export interface ApiKeyRecord {
  /** Names the key in the management API (`DELETE /api-keys/{id}`); never the key itself. */
  id: string;
  /** SHA-256 (hex) of the key; the key itself is never stored. */
  hash: string;
  /** The first characters of the key, to tell keys apart in listings. */
  prefix: string;
  /** A label for people; `''` for a key minted in code without one. */
  name: string;
  principal: Principal;
  /** `null` for a key minted without a creator (in code, the bootstrap key). */
  createdBy: ApiKeyCreator | null;
  /** `null` for a key minted before scopes existed: it keeps its old powers (keys/scopes.ts). */
  scopes: string[] | null;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  /** Written in batches (keys/key-usage.ts), so up to a flush interval stale. */
  lastUsedAt: string | null;
}

/** What `create` takes: the fields a key minted in code may leave out default to `null` and `''`. */
export type NewApiKeyRecord = Pick<ApiKeyRecord, 'hash' | 'prefix' | 'principal' | 'createdAt'> &
  Partial<Pick<ApiKeyRecord, 'id' | 'name' | 'createdBy' | 'scopes' | 'expiresAt'>>;

/** One use of a key, for the batched `last_used_at` write. */
export interface ApiKeyUse {
  hash: string;
  at: string;
}

export interface ApiKeyStore {
  /** A duplicate hash (or id) is refused. Without an `id` the store makes one. */
  create(record: NewApiKeyRecord): Promise<void>;
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  /** The team's keys not revoked, newest first. */
  list(teamUid: string): Promise<ApiKeyRecord[]>;
  /**
   * Revoke a key of the team (one write; a revoked key stays revoked, with its first time).
   * Answers the record as it now is and whether this call revoked it, `undefined` when the team
   * has no such key.
   */
  revoke(teamUid: string, id: string, at: string): Promise<{ record: ApiKeyRecord; revoked: boolean } | undefined>;
  /** Record uses in one write: each key's `lastUsedAt` becomes the latest of it and its uses. */
  touch(uses: readonly ApiKeyUse[]): Promise<void>;
}
