import {
  type AuditEventRecord,
  type FactorySourceRecord,
  type FactorySourceStore,
  SOURCE_APPLIES_KEPT,
  type SourceApplyPosition,
  type SourceApplyRecord,
} from '@agentrun/core/store';
import { copy } from './copy.js';

/** Newest first: by start, then id (code-point order, as the PostgreSQL store's "C" collation). */
const newestFirst = (a: SourceApplyPosition, b: SourceApplyPosition) =>
  a.startedAt !== b.startedAt ? (a.startedAt < b.startedAt ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;

/**
 * Factory sources and their applies in memory (docs/repositories.md, "Factories from a
 * repository"). Each method runs without awaiting, so a claim is atomic as the port asks.
 */
export function createMemoryFactorySources(audit: (event: AuditEventRecord | undefined) => void): FactorySourceStore {
  const sources = new Map<string, FactorySourceRecord>();
  // Applies by factory UID (UIDs are unique across teams), newest first.
  const applies = new Map<string, SourceApplyRecord[]>();
  const key = (teamUid: string, factoryUid: string) => `${teamUid}\u0000${factoryUid}`;
  return {
    async put(record, event) {
      const k = key(record.teamUid, record.factoryUid);
      const existing = sources.get(k);
      sources.set(k, copy(existing ? { ...record, createdAt: existing.createdAt } : record));
      audit(event);
    },
    async get(teamUid, factoryUid) {
      const found = sources.get(key(teamUid, factoryUid));
      return found ? copy(found) : undefined;
    },
    async find(factoryUid) {
      const found = [...sources.values()].find((s) => s.factoryUid === factoryUid);
      return found ? copy(found) : undefined;
    },
    async delete(teamUid, factoryUid, event) {
      const deleted = sources.delete(key(teamUid, factoryUid));
      if (deleted) {
        applies.delete(factoryUid);
        audit(event);
      }
      return deleted;
    },
    async list(after, limit) {
      return [...sources.values()]
        .filter((s) => after === undefined || s.factoryUid > after)
        .sort((a, b) => (a.factoryUid < b.factoryUid ? -1 : 1))
        .slice(0, limit)
        .map(copy);
    },
    async claimApply(apply, staleBefore) {
      if (!sources.has(key(apply.teamUid, apply.factoryUid))) return 'done';
      const list = applies.get(apply.factoryUid) ?? [];
      const live = (a: SourceApplyRecord) => a.status !== 'applying' || a.startedAt >= staleBefore;
      const others = list.filter(live);
      if (others.some((a) => a.commit === apply.commit)) return 'done';
      if (others.some((a) => a.startedAt > apply.startedAt)) return 'superseded';
      if (others.some((a) => a.status === 'applying')) return 'busy';
      const next = [copy(apply), ...list.filter((a) => a.commit !== apply.commit)].sort(newestFirst).slice(0, SOURCE_APPLIES_KEPT);
      applies.set(apply.factoryUid, next);
      return 'claimed';
    },
    async finishApply(outcome, event) {
      for (const list of applies.values()) {
        const found = list.find((a) => a.id === outcome.id);
        if (!found) continue;
        Object.assign(
          found,
          copy({ status: outcome.status, errors: outcome.errors, version: outcome.version, finishedAt: outcome.finishedAt }),
        );
        audit(event);
        return true;
      }
      return false;
    },
    async listApplies(teamUid, factoryUid, q) {
      if (!sources.has(key(teamUid, factoryUid))) return [];
      const { after } = q;
      return (applies.get(factoryUid) ?? [])
        .filter((a) => after === undefined || newestFirst(a, after) > 0)
        .sort(newestFirst)
        .slice(0, q.limit)
        .map(copy);
    },
  };
}
