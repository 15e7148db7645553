import { isAgentRunError } from '../errors.js';
import { emitSafely } from '../events.js';
import { toRunItem } from '../run/record.js';
import type { RunService } from '../run/run-service.js';
import { createLoop, type LoopHealth, ReportedFailure } from '../runner/loop.js';
import { isoTime } from '../util/clock.js';
import { newOrderedId } from '../util/ids.js';
import { parseCron } from './cron.js';
import { planDue } from './plan.js';
import type { ScheduleRecord } from './records.js';
import { scheduledRun } from './scheduled-run.js';

export interface SchedulerOptions {
  /** The run service: its store, clock, skills, events and error hook are the scheduler's. */
  runs: RunService;
  /** How late a due time may still start its run after downtime (docs/schedules.md). Default 1 h. */
  catchUpMs?: number;
  /** The longest the loop sleeps, so a schedule saved in another process is seen in time. Default 10 s. */
  maxSleepMs?: number;
}

/** What one pass did. */
export interface SchedulerTick {
  /** Runs started. */
  started: number;
  /** Due times that started no run: too late, or the run could not be made (`lastSpawnError`). */
  missed: number;
}

export interface Scheduler {
  /** Begin the loop: a pass now, then one at each next due time (at most `maxSleepMs` apart). */
  start(): void;
  /** Stop the loop; resolves once a pass under way has ended. */
  stop(): Promise<void>;
  /** A schedule changed in this process: look again now rather than at the end of the sleep. */
  wake(): void;
  /** One pass over every schedule due by the clock's now (tests drive this with their own clock). */
  tick(): Promise<SchedulerTick>;
  /** How its passes go (runner/loop.ts), for the health report. */
  health(): LoopHealth;
}

const DUE_BATCH = 100;

/**
 * The scheduler (docs/schedules.md, "How a due time starts a run"): it runs beside each worker
 * (`agentrun.worker()`), wakes at the next due time, and starts each due schedule's run through
 * the store's `schedules.fire`, a compare-and-set on the schedule's next due time and a unique
 * claim of the due time in the run's own write. So any number of processes, at any timing, start
 * one run per due time; the one that loses the race writes nothing.
 */
export function createScheduler(options: SchedulerOptions): Scheduler {
  const { runs } = options;
  const { store, clock } = runs;
  const catchUpMs = options.catchUpMs ?? 60 * 60 * 1000;
  const maxSleepMs = options.maxSleepMs ?? 10_000;

  async function step(s: ScheduleRecord, now: number): Promise<'started' | 'missed' | 'none'> {
    const expectNextDueAt = s.nextDueAt as string;
    const cron = parseCron(s.cronSchedule, s.timeZone);
    const base = { teamUid: s.teamUid, scheduleId: s.id, expectNextDueAt };
    if ('error' in cron) {
      await store.schedules.fire({ ...base, nextDueAt: null, spawnError: `cron_schedule: ${cron.error}` });
      return 'missed';
    }
    const plan = planDue(cron, now, catchUpMs);
    if (plan.dueAt === null) {
      const outcome = await store.schedules.fire({
        ...base,
        nextDueAt: plan.nextDueAt,
        ...(plan.skipped ? { spawnError: plan.skipped } : {}),
      });
      return outcome.kind === 'advanced' && plan.skipped ? 'missed' : 'none';
    }
    let run: Awaited<ReturnType<typeof scheduledRun>>;
    try {
      run = await scheduledRun(store, runs.skills, s, plan.dueAt, newOrderedId(now), isoTime(now));
    } catch (error) {
      // The run cannot be made (a skill or environment gone): recorded, and the next due time tries again.
      if (!isAgentRunError(error) || error.status >= 500) throw error;
      await store.schedules.fire({ ...base, nextDueAt: plan.nextDueAt, spawnError: `due at ${plan.dueAt}: ${error.message}` });
      return 'missed';
    }
    const outcome = await store.schedules.fire({ ...base, nextDueAt: plan.nextDueAt, dueAt: plan.dueAt, run });
    if (outcome.kind !== 'fired') return 'none';
    emitSafely(runs.events, runs.onError, 'run.created', { run: toRunItem(outcome.run), team_uid: s.teamUid });
    return 'started';
  }

  /** One pass; each schedule that failed is reported and added to `errors`. */
  async function tick(errors: unknown[] = []): Promise<SchedulerTick> {
    const result: SchedulerTick = { started: 0, missed: 0 };
    for (;;) {
      const now = clock.now();
      const due = await store.schedules.listDue(isoTime(now), DUE_BATCH);
      let failed = false;
      for (const s of due) {
        try {
          const done = await step(s, now);
          if (done !== 'none') result[done]++;
        } catch (error) {
          // A store that failed: this schedule is tried again at the next pass (not in this one,
          // which would read it due again and again).
          failed = true;
          errors.push(error);
          runs.onError(error);
        }
      }
      if (due.length < DUE_BATCH || failed) return result;
    }
  }

  // The runner's loop (runner/loop.ts): a pass, then sleep until the next due time (at most
  // `maxSleepMs`) or a wake; after a failure, `maxSleepMs`.
  const loop = createLoop<number>({
    pass: async () => {
      const errors: unknown[] = [];
      await tick(errors);
      if (errors.length > 0) throw new ReportedFailure(errors);
      const next = await store.schedules.nextDueAt();
      return next === null ? maxSleepMs : Math.min(maxSleepMs, Math.max(0, Date.parse(next) - clock.now()));
    },
    nextMs: (sleep) => sleep,
    backoff: { baseMs: maxSleepMs, maxMs: maxSleepMs },
    onError: runs.onError,
    failed: maxSleepMs,
  });

  return {
    start: loop.start,
    stop: loop.stop,
    wake: loop.wake,
    tick: () => tick(),
    health: loop.health,
  };
}
