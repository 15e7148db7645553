import type { ApiKeyRecord, ApiKeyStore } from '@agentrun/core/store';
import { copy as clone } from './copy.js';

/** API keys in memory, by hash (the key itself is never stored); a duplicate hash or id is refused. */
export function createMemoryApiKeys(): ApiKeyStore {
  const apiKeys = new Map<string, ApiKeyRecord>();
  const byId = (id: string) => [...apiKeys.values()].find((r) => r.id === id);
  return {
    async create(input) {
      const record: ApiKeyRecord = {
        id: input.id ?? globalThis.crypto.randomUUID(),
        hash: input.hash,
        prefix: input.prefix,
        name: input.name ?? '',
        principal: input.principal,
        createdBy: input.createdBy ?? null,
        scopes: input.scopes ?? null,
        createdAt: input.createdAt,
        expiresAt: input.expiresAt ?? null,
        revokedAt: null,
        lastUsedAt: null,
      };
      if (apiKeys.has(record.hash) || byId(record.id)) throw new Error('an API key with this hash or id already exists');
      apiKeys.set(record.hash, clone(record));
    },
    async findByHash(hash) {
      const record = apiKeys.get(hash);
      return record ? clone(record) : undefined;
    },
    async list(teamUid) {
      return [...apiKeys.values()]
        .filter((r) => r.principal.team_uid === teamUid && r.revokedAt === null)
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map(clone);
    },
    async revoke(teamUid, id, at) {
      const record = byId(id);
      if (!record || record.principal.team_uid !== teamUid) return undefined;
      const revoked = record.revokedAt === null;
      record.revokedAt ??= at;
      return { record: clone(record), revoked };
    },
    async touch(uses) {
      for (const { hash, at } of uses) {
        const record = apiKeys.get(hash);
        if (record && (record.lastUsedAt === null || Date.parse(record.lastUsedAt) < Date.parse(at))) record.lastUsedAt = at;
      }
    },
  };
}
