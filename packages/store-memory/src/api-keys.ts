import type { ApiKeyRecord, ApiKeyStore } from '@agentrun/core/store';
import { copy as clone } from './copy.js';

/** API keys in memory, by hash (the key itself is never stored); a duplicate hash is refused. */
export function createMemoryApiKeys(): ApiKeyStore {
  const apiKeys = new Map<string, ApiKeyRecord>();
  return {
    async create(record) {
      if (apiKeys.has(record.hash)) throw new Error('an API key with this hash already exists');
      apiKeys.set(record.hash, clone(record));
    },
    async findByHash(hash) {
      const record = apiKeys.get(hash);
      return record ? clone(record) : undefined;
    },
  };
}
