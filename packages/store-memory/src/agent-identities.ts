import type { AgentIdentityRecord, AgentIdentityStore, AuditEventRecord } from '@agentrun/core/store';
import { copy } from './copy.js';

/** The team's agent identities in memory (docs/run-api.md, "Agent identities"); `append` is the audit log's. */
export function createMemoryAgentIdentities(append: (event: AuditEventRecord | undefined) => void): AgentIdentityStore {
  const byUid = new Map<string, AgentIdentityRecord>();
  const key = (teamUid: string, uid: string) => `${teamUid}\u0000${uid}`;
  return {
    async get(teamUid, uid) {
      const found = byUid.get(key(teamUid, uid));
      return found ? copy(found) : undefined;
    },
    async list(teamUid) {
      const order = (a: AgentIdentityRecord, b: AgentIdentityRecord) =>
        Date.parse(a.createdAt) - Date.parse(b.createdAt) || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0);
      return [...byUid.values()]
        .filter((a) => a.teamUid === teamUid)
        .sort(order)
        .map(copy);
    },
    async put(record, audit) {
      const current = byUid.get(key(record.teamUid, record.uid));
      byUid.set(key(record.teamUid, record.uid), copy({ ...record, createdAt: current?.createdAt ?? record.createdAt }));
      append(audit);
    },
    async delete(teamUid, uid, audit) {
      if (!byUid.delete(key(teamUid, uid))) return false;
      append(audit);
      return true;
    },
  };
}
