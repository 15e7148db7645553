import type { Principal } from '../auth/principal.js';

// The API-key part of the Store port (docs/stores.md, "The shape of the interface"): keys are
// kept as hashes; `auth/api-keys.ts` hashes and checks them.

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
