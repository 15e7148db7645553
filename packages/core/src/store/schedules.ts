import type { AuditEventRecord } from '../audit/records.js';
import type { AttachmentRecord, RunRecord } from '../run/record.js';
import type { ScheduleRecord } from '../schedules/records.js';

// The schedules part of the Store port (docs/stores.md; docs/schedules.md). A change takes its
// audit event and commits it with itself. `fire` is the exactly-once rule: the claim of a due time
// and the run it starts are one write, so any number of processes start one run per due time.

export interface FireScheduleInput {
  teamUid: string;
  scheduleId: string;
  /** The schedule's `nextDueAt` as the scheduler read it: the write applies only while it still is. */
  expectNextDueAt: string;
  /** Its `nextDueAt` after this step. */
  nextDueAt: string | null;
  /** The due time a run is started for; `undefined` when this step starts none (see `spawnError`). */
  dueAt?: string;
  run?: { run: RunRecord; attachments: readonly AttachmentRecord[] };
  /** Recorded as `lastSpawnError` when no run is started; a started run clears it. */
  spawnError?: string;
}

/**
 * `fired`: the run was stored with its claim. `advanced`: the schedule moved on without a run
 * (a spawn error, a skipped time, or a due time already claimed). `stale`: another process (or a
 * save) moved the schedule first, or it is paused or gone: nothing written.
 */
export type FireScheduleOutcome = { kind: 'fired'; run: RunRecord } | { kind: 'advanced' } | { kind: 'stale' };

export interface ScheduleStore {
  get(teamUid: string, id: string): Promise<ScheduleRecord | undefined>;
  /** The team's schedules, by name (code point order), then id. */
  list(teamUid: string): Promise<ScheduleRecord[]>;
  /** Create, or replace by `id` (keeping `createdAt`, `createdBy`, `lastRanAt`). Whether it was created. */
  put(record: ScheduleRecord, audit?: AuditEventRecord): Promise<{ created: boolean }>;
  /** Whether it was there; the event is stored only if it was. Its claimed due times go with it. */
  delete(teamUid: string, id: string, audit?: AuditEventRecord): Promise<boolean>;
  /** Enabled schedules of every team with `nextDueAt <= now`, earliest first, at most `limit`. */
  listDue(now: string, limit: number): Promise<ScheduleRecord[]>;
  /** The earliest `nextDueAt` of any enabled schedule, or `null` (when the scheduler wakes next). */
  nextDueAt(): Promise<string | null>;
  /**
   * One step of a schedule, atomically: only if it is enabled and its `nextDueAt` is still
   * `expectNextDueAt`, set `nextDueAt`; with `dueAt` and `run`, claim (schedule, dueAt) (unique:
   * a due time claimed before starts nothing again) and store the run, set `lastRanAt = dueAt`
   * and clear `lastSpawnError`; without them, set `lastSpawnError` when given.
   */
  fire(input: FireScheduleInput): Promise<FireScheduleOutcome>;
}
