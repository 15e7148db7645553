import type { AuditEventRecord, RepositoryRecord, RepositoryStore } from '@agentrun/core/store';
import { copy } from './copy.js';

/** A team's registered repositories in memory, keyed by team and name (docs/repositories.md). */
export function createMemoryRepositories(audit: (event: AuditEventRecord | undefined) => void): RepositoryStore {
  const byKey = new Map<string, RepositoryRecord>();
  const key = (teamUid: string, name: string) => `${teamUid}\u0000${name}`;
  return {
    async create(record, event) {
      const k = key(record.teamUid, record.name);
      if (byKey.has(k)) return false;
      byKey.set(k, copy(record));
      audit(event);
      return true;
    },
    async get(teamUid, name) {
      const found = byKey.get(key(teamUid, name));
      return found ? copy(found) : undefined;
    },
    async list(teamUid) {
      return [...byKey.values()]
        .filter((r) => r.teamUid === teamUid)
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map(copy);
    },
    async delete(teamUid, name, event) {
      const deleted = byKey.delete(key(teamUid, name));
      if (deleted) audit(event);
      return deleted;
    },
  };
}
