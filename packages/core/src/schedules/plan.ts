import { isoTime } from '../util/clock.js';
import type { CronSchedule } from './cron.js';

/** What the scheduler does with a schedule whose next due time has come (docs/schedules.md, "Missed due times"). */
export interface DueStep {
  /** The due time to start a run for; `null`: none this time (see `skipped`). */
  dueAt: string | null;
  /** Its next due time after this step (`null`: never again). */
  nextDueAt: string | null;
  /** Why no run starts: the latest due time is older than the catch-up window. */
  skipped?: string;
}

/**
 * The catch-up policy, in one place: of the due times from `nextDueAt` up to `now`, only the
 * latest starts a run, and only if it is at most `catchUpMs` old; the older ones are skipped (a
 * scheduler that was down for a while starts one run, not one per missed time). The next due
 * time is the first after `now`.
 */
export function planDue(cron: CronSchedule, now: number, catchUpMs: number): DueStep {
  const next = cron.next(now);
  const nextDueAt = next === null ? null : isoTime(next);
  const latest = cron.latestAtOrBefore(now);
  if (latest === null) return { dueAt: null, nextDueAt };
  if (now - latest > catchUpMs) {
    return {
      dueAt: null,
      nextDueAt,
      skipped: `due at ${isoTime(latest)}, no scheduler ran until ${isoTime(now)}, past the catch-up window of ${Math.round(catchUpMs / 1000)} s: skipped`,
    };
  }
  return { dueAt: isoTime(latest), nextDueAt };
}
