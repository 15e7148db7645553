import { type AgentRun, createAgentRun, createApiKey, createScheduler, type Scheduler, type Store } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { openTestDatabase, type TestDatabase } from './support/database.js';

// Exactly once per due time across processes (docs/schedules.md): three agentruns, each with its
// own pool (three processes) on one schema, their schedulers on one clock the test moves minute by
// minute. A schedule due every minute starts one run per minute over 5 minutes; then every
// process stops for 2 minutes, three new ones start, and the schedule goes on from the latest
// due time (the catch-up policy), one run per minute again. No real time passes: nothing is timed.
let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase('schedules_processes');
});
afterAll(() => db?.close());

const T0 = Date.UTC(2026, 5, 1, 8, 0, 0);
const MINUTE = 60_000;
const at = (minute: number) => new Date(T0 + minute * MINUTE).toISOString();

describe('a schedule served by three processes', () => {
  it('starts one run per due time, and resumes after all processes were stopped for 2 minutes', async ({ skip }) => {
    if (!db.multiConnection || !db.newPool) skip('needs a PostgreSQL server: pools stand for processes');
    await db.freshStore();
    let now = T0 - 30_000;
    const clock = { now: () => now };
    const errors: unknown[] = [];
    const processes = () => {
      const pools = [0, 1, 2].map(() => db.newPool?.(4)).filter((p) => p !== undefined);
      const stores: Store[] = pools.map((pool) => createPostgresStore({ pool, schema: db.schema }));
      const apps: AgentRun[] = stores.map((store) => createAgentRun({ store, clock, onError: (e) => errors.push(e) }));
      const schedulers: Scheduler[] = apps.map((app) => createScheduler({ runs: app.services.runs }));
      return { apps, schedulers, close: () => Promise.all(pools.map((p) => p.end())) };
    };
    /** Every process passes over the schedules, at once, twice (a pass that finds the due time taken starts nothing). */
    const allTick = async (schedulers: Scheduler[]) => {
      const ticks = [...(await Promise.all(schedulers.map((s) => s.tick()))), ...(await Promise.all(schedulers.map((s) => s.tick())))];
      return ticks.reduce((sum, t) => sum + t.started, 0);
    };

    let group = processes();
    const key = await createApiKey(group.apps[0]?.store.apiKeys as Store['apiKeys'], testPrincipal());
    const call = async (app: AgentRun, method: string, path: string, body?: unknown) => {
      const res = await app.fetch(
        new Request(`http://agentrun.test/api/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        }),
      );
      return (await res.json()) as Record<string, unknown>;
    };
    const created = await call(group.apps[1] as AgentRun, 'POST', '/agent/schedules', {
      name: 'every minute',
      cron_schedule: '* * * * *',
      prompt: 'tick',
    });
    const id = created.id as string;
    expect(created.history).toEqual({ last_ran: null, next_run: at(0) });
    const dueTimes = async () => {
      const { runs } = (await call(
        group.apps[2] as AgentRun,
        'GET',
        `/agent/runs?schedule_id=${id}&sort_by=created_at&sort_order=asc&limit=100`,
      )) as {
        runs: { schedule: { due_at: string }; source: string }[];
      };
      expect(runs.every((r) => r.source === 'SCHEDULED_AGENT')).toBe(true);
      return runs.map((r) => r.schedule.due_at);
    };

    // Five minutes, each process passing at a different second of each minute.
    for (let minute = 0; minute < 5; minute++) {
      for (const second of [1, 17, 42]) {
        now = T0 + minute * MINUTE + second * 1000;
        await allTick(group.schedulers);
      }
    }
    expect(await dueTimes()).toEqual([at(0), at(1), at(2), at(3), at(4)]);

    // Every process stops; 08:05 and 08:06 pass with none running; three new ones start at 08:07:20.
    await group.close();
    group = processes();
    now = T0 + 7 * MINUTE + 20_000;
    expect(await allTick(group.schedulers)).toBe(1);
    for (let minute = 8; minute < 10; minute++) {
      now = T0 + minute * MINUTE + 5000;
      expect(await allTick(group.schedulers)).toBe(1);
    }
    // The latest missed due time (08:07) ran once, the older ones (08:05, 08:06) were skipped, then one per minute.
    const times = await dueTimes();
    expect(times).toEqual([at(0), at(1), at(2), at(3), at(4), at(7), at(8), at(9)]);
    expect(new Set(times).size).toBe(times.length);
    expect((await call(group.apps[0] as AgentRun, 'GET', `/agent/schedules/${id}`)).history).toEqual({ last_ran: at(9), next_run: at(10) });
    await group.close();
    expect(errors).toEqual([]);
  });
});
