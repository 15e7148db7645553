import type { AuditEventRecord, EnvironmentRecord, EnvironmentStore } from '@agentrun/core/store';
import { copy } from './copy.js';

/** The team's environments in memory (docs/repositories.md, "Environments"); `append` is the audit log's. */
export function createMemoryEnvironments(append: (event: AuditEventRecord | undefined) => void): EnvironmentStore {
  const byId = new Map<string, EnvironmentRecord>();
  const key = (teamUid: string, id: string) => `${teamUid}\u0000${id}`;
  return {
    async get(teamUid, id) {
      const found = byId.get(key(teamUid, id));
      return found ? copy(found) : undefined;
    },
    async list(teamUid) {
      return [...byId.values()]
        .filter((e) => e.teamUid === teamUid)
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map(copy);
    },
    async put(record, audit) {
      for (const e of byId.values())
        if (e.teamUid === record.teamUid && e.name === record.name && e.id !== record.id) return { ok: false, reason: 'name_taken' };
      const current = byId.get(key(record.teamUid, record.id));
      byId.set(key(record.teamUid, record.id), copy({ ...record, createdAt: current?.createdAt ?? record.createdAt }));
      append(audit);
      return { ok: true, created: current === undefined };
    },
    async delete(teamUid, id, audit) {
      if (!byId.delete(key(teamUid, id))) return false;
      append(audit);
      return true;
    },
  };
}
