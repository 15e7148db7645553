import type { AuditEventRecord, CreateRunInput, ScheduleRecord, ScheduleStore } from '@agentrun/core/store';
import { compareCodePoints } from '@agentrun/core/store';
import { copy } from './copy.js';

/**
 * Schedules in memory (docs/schedules.md). `fire` is one synchronous step: the compare-and-set on
 * `nextDueAt`, the claim of the due time and the run (`insertRun`, runs.ts) happen together.
 */
export function createMemorySchedules(
  append: (event: AuditEventRecord | undefined) => void,
  insertRun: (input: CreateRunInput, copyBytes: (bytes: Uint8Array) => Uint8Array) => void,
): {
  schedules: ScheduleStore;
  /** A definitions write's schedules (control-plane.ts), in its synchronous step. */
  write(puts: readonly ScheduleRecord[], deletes: readonly string[], teamUid: string, factoryUid: string): void;
} {
  const byId = new Map<string, ScheduleRecord>();
  /** Claimed due times: `team\0schedule\0dueAt`. Deleted with their schedule. */
  const fires = new Set<string>();
  const key = (teamUid: string, id: string) => `${teamUid}\u0000${id}`;
  const enabledDue = () => [...byId.values()].filter((s) => s.enabled && s.nextDueAt !== null);
  const put = (record: ScheduleRecord): boolean => {
    const current = byId.get(key(record.teamUid, record.id));
    byId.set(
      key(record.teamUid, record.id),
      copy(current ? { ...record, createdAt: current.createdAt, createdBy: current.createdBy, lastRanAt: current.lastRanAt } : record),
    );
    return current === undefined;
  };
  const remove = (teamUid: string, id: string): boolean => {
    if (!byId.delete(key(teamUid, id))) return false;
    const prefix = `${key(teamUid, id)}\u0000`;
    for (const f of fires) if (f.startsWith(prefix)) fires.delete(f);
    return true;
  };
  const write = (puts: readonly ScheduleRecord[], deletes: readonly string[], teamUid: string, factoryUid: string) => {
    for (const id of deletes) if (byId.get(key(teamUid, id))?.factoryUid === factoryUid) remove(teamUid, id);
    for (const s of puts) put(s);
  };
  const schedules: ScheduleStore = {
    async get(teamUid, id) {
      const found = byId.get(key(teamUid, id));
      return found ? copy(found) : undefined;
    },
    async list(teamUid) {
      return [...byId.values()]
        .filter((s) => s.teamUid === teamUid)
        .sort((a, b) => compareCodePoints(a.name, b.name) || compareCodePoints(a.id, b.id))
        .map(copy);
    },
    async put(record, audit) {
      const created = put(record);
      append(audit);
      return { created };
    },
    async delete(teamUid, id, audit) {
      if (!remove(teamUid, id)) return false;
      append(audit);
      return true;
    },
    async listDue(now, limit) {
      return enabledDue()
        .filter((s) => (s.nextDueAt as string) <= now)
        .sort(
          (a, b) =>
            compareCodePoints(a.nextDueAt as string, b.nextDueAt as string) ||
            compareCodePoints(a.teamUid, b.teamUid) ||
            compareCodePoints(a.id, b.id),
        )
        .slice(0, limit)
        .map(copy);
    },
    async nextDueAt() {
      const times = enabledDue().map((s) => s.nextDueAt as string);
      return times.length === 0 ? null : times.reduce((a, b) => (a < b ? a : b));
    },
    async fire(input) {
      const s = byId.get(key(input.teamUid, input.scheduleId));
      if (!s?.enabled || s.nextDueAt !== input.expectNextDueAt) return { kind: 'stale' };
      if (input.dueAt === undefined || !input.run) {
        s.nextDueAt = input.nextDueAt;
        if (input.spawnError !== undefined) s.lastSpawnError = input.spawnError;
        return { kind: 'advanced' };
      }
      const claim = `${key(input.teamUid, input.scheduleId)}\u0000${input.dueAt}`;
      const claimed = !fires.has(claim);
      // The run first: if it cannot be stored, nothing of the step is.
      if (claimed) insertRun(input.run, (bytes) => new Uint8Array(bytes));
      fires.add(claim);
      s.nextDueAt = input.nextDueAt;
      s.lastRanAt = input.dueAt;
      s.lastSpawnError = null;
      return claimed ? { kind: 'fired', run: copy(input.run.run) } : { kind: 'advanced' };
    },
  };
  return { schedules, write };
}
