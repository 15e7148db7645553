import type { AuditEventRecord, EnvironmentRecord, EnvironmentStore } from '@agentrun/core/store';
import { copy } from './copy.js';

/** What a definitions write (control-plane.ts) does to environments, checked whole before anything is written. */
export interface EnvironmentWrites {
  /** Whether every name stays unique in its team after the puts and deletes. */
  fits(puts: readonly EnvironmentRecord[], deletes: readonly string[], teamUid: string): boolean;
  write(puts: readonly EnvironmentRecord[], deletes: readonly string[], teamUid: string): void;
}

/** The team's environments in memory (docs/repositories.md, "Environments"); `append` is the audit log's. */
export function createMemoryEnvironments(append: (event: AuditEventRecord | undefined) => void): {
  environments: EnvironmentStore;
  writes: EnvironmentWrites;
} {
  const byId = new Map<string, EnvironmentRecord>();
  const key = (teamUid: string, id: string) => `${teamUid}\u0000${id}`;
  const writes: EnvironmentWrites = {
    fits(puts, deletes, teamUid) {
      const after = new Map([...byId].filter(([, e]) => e.teamUid === teamUid));
      for (const id of deletes) after.delete(key(teamUid, id));
      for (const e of puts) after.set(key(teamUid, e.id), e);
      const names = [...after.values()].map((e) => e.name);
      return new Set(names).size === names.length;
    },
    write(puts, deletes, teamUid) {
      for (const id of deletes) byId.delete(key(teamUid, id));
      for (const e of puts) {
        const current = byId.get(key(e.teamUid, e.id));
        byId.set(key(e.teamUid, e.id), copy({ ...e, createdAt: current?.createdAt ?? e.createdAt }));
      }
    },
  };
  const environments: EnvironmentStore = {
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
  return { environments, writes };
}
