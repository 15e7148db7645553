import { Cron } from 'croner';

/**
 * Cron expressions, read by croner (no dependencies, no Node built-ins: core stays pure). Five
 * fields only (minute hour day-of-month month day-of-week, docs/schedules.md), in an explicit IANA
 * time zone; croner also knows `@daily`-style nicknames. This module is the one place that reads one.
 */
export interface CronSchedule {
  /** The first due time strictly after `ms`, or `null` when there is none. */
  next(ms: number): number | null;
  /** The last due time at or before `ms`, or `null` when there is none. */
  latestAtOrBefore(ms: number): number | null;
}

/** A checked expression, or the reason it is refused (a sentence naming what is wrong). */
export function parseCron(expression: string, timeZone: string): CronSchedule | { error: string } {
  let cron: Cron;
  try {
    cron = new Cron(expression, { timezone: timeZone, mode: '5-part' });
  } catch (error) {
    return { error: cronMessage(error) };
  }
  const next = (ms: number) => cron.nextRun(new Date(ms))?.getTime() ?? null;
  return {
    next,
    latestAtOrBefore(ms) {
      // previousRuns is strictly before; a due time exactly at `ms` is the next after the one before it.
      const before = cron.previousRuns(1, new Date(ms))[0]?.getTime() ?? null;
      const after = next(before ?? ms - 1);
      return after !== null && after <= ms ? after : before;
    },
  };
}

/** Whether `name` is an IANA time zone this runtime knows. */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const cronMessage = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).replace(/^CronPattern: /, '').replace(/^CronOptions: /, '');
