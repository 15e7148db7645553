import { createMemoryStore } from '@agentrun/store-memory';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createAgentRun, createApiKey, createScheduler, demoExecutor } from '../src/index.js';
import { type CronSchedule, parseCron } from '../src/schedules/cron.js';
import { planDue } from '../src/schedules/plan.js';
import { testPrincipal } from '../src/testing/index.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Five-field expressions of every kind of field: values, lists, ranges, steps, names. */
const field = (min: number, max: number) =>
  fc.oneof(
    fc.constant('*'),
    fc.integer({ min, max }).map(String),
    fc.integer({ min: 1, max: Math.max(1, Math.floor((max - min) / 2)) }).map((n) => `*/${n}`),
    fc.tuple(fc.integer({ min, max }), fc.integer({ min, max })).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
    fc.uniqueArray(fc.integer({ min, max }), { minLength: 2, maxLength: 4 }).map((xs) => xs.join(',')),
  );
const expression = fc.tuple(field(0, 59), field(0, 23), field(1, 28), field(1, 12), field(0, 6)).map((f) => f.join(' '));
const zone = fc.constantFrom('UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Pacific/Chatham');
const instant = fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2030, 0, 1) });

const cronOf = (expr: string, tz: string): CronSchedule => {
  const c = parseCron(expr, tz);
  if ('error' in c) throw new Error(c.error);
  return c;
};

describe('cron (schedules/cron.ts)', () => {
  it('reads every five-field expression in any zone; its next due time is later, and none lies between', () => {
    fc.assert(
      fc.property(expression, zone, instant, (expr, tz, now) => {
        const cron = cronOf(expr, tz);
        const next = cron.next(now);
        if (next === null) return;
        expect(next).toBeGreaterThan(now);
        expect(next % 1000).toBe(0);
        const latest = cron.latestAtOrBefore(next);
        expect(latest).toBe(next);
        const before = cron.latestAtOrBefore(next - 1);
        if (before !== null) expect(before).toBeLessThanOrEqual(now);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses what is not five fields or not a zone, with a reason', () => {
    for (const expr of ['', '* * * *', '* * * * * *', '61 * * * *', '* 24 * * *', 'a b c d e', '*/0 * * * *']) {
      expect(parseCron(expr, 'UTC'), expr).toEqual({ error: expect.any(String) });
    }
  });
});

describe('the catch-up policy (schedules/plan.ts)', () => {
  it('starts only the latest due time at or before now, only within the window; the next is the first after now', () => {
    fc.assert(
      fc.property(expression, zone, instant, fc.integer({ min: 0, max: 48 * HOUR }), (expr, tz, now, catchUpMs) => {
        const cron = cronOf(expr, tz);
        const plan = planDue(cron, now, catchUpMs);
        const latest = cron.latestAtOrBefore(now);
        expect(plan.nextDueAt).toBe(cron.next(now) === null ? null : new Date(cron.next(now) as number).toISOString());
        if (latest === null || now - latest > catchUpMs) {
          expect(plan.dueAt).toBeNull();
          expect(plan.skipped !== undefined).toBe(latest !== null);
          return;
        }
        expect(plan.dueAt).toBe(new Date(latest).toISOString());
        expect(plan.skipped).toBeUndefined();
        // Nothing due after it and up to now: it is the latest.
        const after = cron.next(latest);
        if (after !== null) expect(after).toBeGreaterThan(now);
      }),
      { numRuns: 300 },
    );
  });
});

describe('the scheduler loop', () => {
  it('started, it starts a due schedule’s run on its own; stopped, none; with a worker, woken by a save in its process', async () => {
    const store = createMemoryStore();
    let now = Date.UTC(2026, 0, 1, 12, 0, 30);
    const app = createAgentRun({ store, clock: { now: () => now } });
    const key = await createApiKey(store.apiKeys, testPrincipal());
    const res = await app.fetch(
      new Request('http://x/api/v1/agent/schedules', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'tick', cron_schedule: '* * * * *', prompt: 'tick' }),
      }),
    );
    expect(res.status).toBe(201);
    const scheduleRuns = () =>
      store.runs.list({ teamUid: 'team-1', filter: { source: 'SCHEDULED_AGENT' }, sortBy: 'created_at', order: 'asc', limit: 10 });
    now = Date.UTC(2026, 0, 1, 12, 1, 1);
    const scheduler = createScheduler({ runs: app.services.runs, maxSleepMs: 5 });
    scheduler.start();
    await vi.waitFor(async () => expect(await scheduleRuns()).toHaveLength(1));
    await scheduler.stop();
    now = Date.UTC(2026, 0, 1, 12, 2, 1);
    // Stopped: a pass it would have made finds the schedule due still, and starts it only when asked.
    expect(await scheduleRuns()).toHaveLength(1);
    expect(await scheduler.tick()).toEqual({ started: 1, missed: 0 });

    // agentrun.worker() runs one too, started and stopped with the worker; it sleeps until the next
    // due time (here up to an hour), and a schedule saved in its process wakes it at once.
    const worker = app.worker({ executor: demoExecutor({ durationMs: 1 }), schedules: { maxSleepMs: 3_600_000 } });
    now = Date.UTC(2026, 0, 1, 12, 3, 1);
    worker.start();
    await vi.waitFor(async () => expect(await scheduleRuns()).toHaveLength(3));
    now = Date.UTC(2026, 0, 1, 12, 4, 1);
    const [schedule] = (await store.schedules.list('team-1')) as unknown as [{ id: string }];
    const put = await app.fetch(
      new Request(`http://x/api/v1/agent/schedules/${schedule.id}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'tick', cron_schedule: '* * * * *', enabled: true }),
      }),
    );
    expect(put.status).toBe(200);
    await vi.waitFor(async () => expect(await scheduleRuns()).toHaveLength(4));
    await worker.stop();
    expect((await scheduleRuns()).map((r) => r.schedule?.due_at)).toEqual([
      '2026-01-01T12:01:00.000Z',
      '2026-01-01T12:02:00.000Z',
      '2026-01-01T12:03:00.000Z',
      '2026-01-01T12:04:00.000Z',
    ]);
  });
});

describe('limits', () => {
  it('a team has at most 1000 schedules: the next create is a 409, and nothing is written', async () => {
    const store = createMemoryStore();
    const app = createAgentRun({ store });
    const key = await createApiKey(store.apiKeys, testPrincipal());
    const create = () =>
      app.fetch(
        new Request('http://x/api/v1/agent/schedules', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'n', cron_schedule: '0 9 * * *', prompt: 'p' }),
        }),
      );
    const at = '2026-01-01T00:00:00.000Z';
    const owner = { type: 'user' as const, uid: 'user-1', team_uid: 'team-1' };
    for (let i = 0; i < 999; i++) {
      await store.schedules.put({
        id: `s${i}`,
        teamUid: 'team-1',
        factoryUid: null,
        name: `s${i}`,
        cronSchedule: '0 9 * * *',
        timeZone: 'UTC',
        enabled: false,
        prompt: 'p',
        agentConfig: null,
        agentUid: null,
        createdBy: owner,
        owner,
        createdAt: at,
        updatedAt: at,
        nextDueAt: null,
        lastRanAt: null,
        lastSpawnError: null,
      });
    }
    expect((await create()).status).toBe(201);
    const refused = await create();
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { detail: string }).detail).toContain('1000 schedules');
    expect(await store.schedules.list('team-1')).toHaveLength(1000);
  });
});
