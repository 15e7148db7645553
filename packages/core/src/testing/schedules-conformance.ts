import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AgentRun, createAgentRun } from '../app/create-agent-run.js';
import { createApiKey } from '../auth/api-keys.js';
import { createScheduler, type Scheduler } from '../schedules/scheduler.js';
import type { Store } from '../store/store.js';
import { seedEnvironments } from './environment-fixtures.js';
import { testPrincipal } from './fixtures.js';

/**
 * Schedules through the HTTP surface and the scheduler (docs/schedules.md), against a store, on
 * a clock the test moves: the API's answers and refusals (nothing written), one run per due time
 * however many schedulers race, the catch-up policy, spawn errors, the `schedule_id` filter.
 */
export interface SchedulesConformanceOptions {
  /** A fresh, empty store for each test; `second` opens another handle on the same data when the store has one (Postgres: its own pool). */
  create: () => Store | Promise<Store>;
  destroy?: (store: Store) => void | Promise<void>;
}

const ORIGIN = 'http://agentrun.test';
const T0 = Date.UTC(2026, 2, 2, 9, 0, 0);
const MINUTE = 60_000;

// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely here; their shapes are the route table's to check
type Json = Record<string, any>;

export function describeSchedulesConformance(name: string, options: SchedulesConformanceOptions): void {
  describe(`${name}: schedules`, () => {
    let store: Store;
    let app: AgentRun;
    let key: string;
    let reader: string;
    let errors: unknown[];
    let now: number;
    const team = `sched-team-${name}`;
    const scheduler = (): Scheduler => createScheduler({ runs: app.services.runs });

    const call = async (method: string, path: string, body?: unknown, auth = key) => {
      const res = await app.fetch(
        new Request(`${ORIGIN}/api/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${auth}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        }),
      );
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json };
    };
    const ok = async (method: string, path: string, body?: unknown): Promise<Json> => {
      const res = await call(method, path, body);
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      return res.body;
    };
    const refused = async (method: string, path: string, body: unknown, status: number, detail: RegExp) => {
      const res = await call(method, path, body);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body.detail).toMatch(detail);
    };
    const scheduledRuns = async (scheduleId: string) =>
      ((await ok('GET', `/agent/runs?schedule_id=${scheduleId}&sort_by=created_at&sort_order=asc&limit=100`)).runs as Json[]).map(
        (r) => r.schedule.due_at as string,
      );
    const minute = (n: number) => new Date(T0 + n * MINUTE).toISOString();

    beforeEach(async () => {
      store = await options.create();
      errors = [];
      now = T0;
      app = createAgentRun({ store, clock: { now: () => now }, onError: (e) => errors.push(e) });
      key = await createApiKey(store.apiKeys, testPrincipal({ uid: `sched-${name}`, team_uid: team }));
      reader = await createApiKey(store.apiKeys, {
        ...testPrincipal({ uid: `sched-reader-${name}`, team_uid: team }),
        scopes: ['read_runs'],
      });
    });
    afterEach(async () => {
      expect(errors).toEqual([]);
      await options.destroy?.(store);
    });

    const daily = { name: 'Daily review', cron_schedule: '0 9 * * *', prompt: 'Review open pull requests' };

    it('creates, gets, lists (by name), updates, pauses, resumes and deletes a schedule, each change audited', async () => {
      const created = await call('POST', '/agent/schedules', { ...daily, agent_config: { model_id: 'm1' } });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      expect(created.body).toEqual({
        id,
        name: 'Daily review',
        cron_schedule: '0 9 * * *',
        time_zone: 'UTC',
        enabled: true,
        prompt: 'Review open pull requests',
        agent_config: { model_id: 'm1' },
        created_at: minute(0),
        updated_at: minute(0),
        created_by: { type: 'user', uid: `sched-${name}`, display_name: 'Test User' },
        updated_by: { type: 'user', uid: `sched-${name}`, display_name: 'Test User' },
        // 09:00 exactly is now: the next due time is strictly after it.
        history: { last_ran: null, next_run: '2026-03-03T09:00:00.000Z' },
        last_spawn_error: null,
        scope: { type: 'Team', uid: team },
        factory_uid: null,
      });
      expect(await ok('GET', `/agent/schedules/${id}`)).toEqual(created.body);
      await ok('POST', '/agent/schedules', { ...daily, name: 'Another', time_zone: 'Europe/Paris', enabled: false });
      expect(((await ok('GET', '/agent/schedules')).schedules as Json[]).map((s) => [s.name, s.enabled, s.history.next_run])).toEqual([
        ['Another', false, null],
        ['Daily review', true, '2026-03-03T09:00:00.000Z'],
      ]);

      now = T0 + MINUTE;
      const updated = await ok('PUT', `/agent/schedules/${id}`, {
        ...daily,
        cron_schedule: '30 8 * * 1-5',
        time_zone: 'America/New_York',
        enabled: true,
      });
      // agent_config absent: kept. 08:30 in New York (EST, UTC-5) is 13:30 UTC.
      expect(updated).toMatchObject({
        id,
        cron_schedule: '30 8 * * 1-5',
        agent_config: { model_id: 'm1' },
        created_at: minute(0),
        updated_at: minute(1),
      });
      expect(updated.history.next_run).toBe('2026-03-02T13:30:00.000Z');

      const paused = await ok('POST', `/agent/schedules/${id}/pause`);
      expect(paused).toMatchObject({ enabled: false, history: { next_run: null } });
      const resumed = await ok('POST', `/agent/schedules/${id}/resume`, {});
      expect(resumed).toMatchObject({ enabled: true, history: { next_run: '2026-03-02T13:30:00.000Z' } });

      expect(await ok('DELETE', `/agent/schedules/${id}`)).toEqual({ success: true });
      for (const [method, path] of [
        ['GET', `/agent/schedules/${id}`],
        ['DELETE', `/agent/schedules/${id}`],
        ['POST', `/agent/schedules/${id}/pause`],
        ['POST', `/agent/schedules/${id}/resume`],
      ] as const) {
        expect((await call(method, path)).status, `${method} ${path}`).toBe(404);
      }
      expect((await call('PUT', `/agent/schedules/${id}`, { ...daily, enabled: true })).status).toBe(404);

      const audit = ((await ok('GET', '/audit/events')).events as Json[])
        .map((e) => e.kind)
        .filter((k: string) => k.startsWith('schedule.'));
      expect(audit.sort()).toEqual(
        ['schedule.created', 'schedule.created', 'schedule.updated', 'schedule.paused', 'schedule.resumed', 'schedule.deleted'].sort(),
      );
    });

    it('refuses bad input with a 400 naming the field, and writes nothing', async () => {
      const bad: [unknown, RegExp][] = [
        [{ ...daily, cron_schedule: '0 9 * *' }, /cron_schedule: must be a five-field cron expression/],
        [{ ...daily, cron_schedule: '0 0 9 * * *' }, /cron_schedule: must be a five-field/],
        [{ ...daily, cron_schedule: '61 9 * * *' }, /cron_schedule: .*minute/],
        [{ ...daily, cron_schedule: '0 0 30 2 *' }, /cron_schedule: is never due again/],
        [{ ...daily, time_zone: 'Mars/Olympus' }, /time_zone: must be an IANA time zone/],
        [{ ...daily, prompt: '  ' }, /prompt: required unless agent_config names a skill/],
        [{ ...daily, agent_config: { environment_id: 'nowhere' } }, /environment_id/],
        [{ ...daily, name: '' }, /name/],
        [{ ...daily, extra: 1 }, /extra: unknown field/],
        [{ cron_schedule: '0 9 * * *', prompt: 'x' }, /name: required/],
        [{ ...daily, enabled: 'yes' }, /enabled/],
      ];
      for (const [body, detail] of bad) await refused('POST', '/agent/schedules', body, 400, detail);
      expect((await ok('GET', '/agent/schedules')).schedules).toEqual([]);

      const id = (await ok('POST', '/agent/schedules', daily)).id as string;
      const before = await ok('GET', `/agent/schedules/${id}`);
      await refused('PUT', `/agent/schedules/${id}`, daily, 400, /enabled: required/);
      await refused('PUT', `/agent/schedules/${id}`, { ...daily, enabled: true, cron_schedule: 'often' }, 400, /cron_schedule/);
      await refused('POST', `/agent/schedules/${id}/pause`, { now: true }, 400, /body/);
      expect(await ok('GET', `/agent/schedules/${id}`)).toEqual(before);
      // A key that may only read runs may read schedules, not change them.
      expect((await call('GET', '/agent/schedules', undefined, reader)).status).toBe(200);
      expect((await call('POST', `/agent/schedules/${id}/pause`, undefined, reader)).status).toBe(403);
      expect((await call('POST', '/agent/schedules', daily, reader)).status).toBe(403);
    });

    it('starts one run per due time, however many schedulers race for it, as SCHEDULED_AGENT with the schedule', async () => {
      const id = (await ok('POST', '/agent/schedules', { ...daily, cron_schedule: '* * * * *', agent_config: { model_id: 'm1' } }))
        .id as string;
      const schedulers = [scheduler(), scheduler(), scheduler()];
      now = T0 + 30_000;
      expect(await schedulers[0]?.tick()).toEqual({ started: 0, missed: 0 });
      for (let n = 1; n <= 3; n++) {
        now = T0 + n * MINUTE + 500;
        const ticks = await Promise.all(schedulers.map((s) => s.tick()));
        expect(ticks.reduce((sum, t) => sum + t.started, 0)).toBe(1);
        expect(await Promise.all(schedulers.map((s) => s.tick()))).toEqual(schedulers.map(() => ({ started: 0, missed: 0 })));
      }
      expect(await scheduledRuns(id)).toEqual([minute(1), minute(2), minute(3)]);
      const [run] = (await ok('GET', `/agent/runs?schedule_id=${id}&sort_by=created_at&sort_order=asc&limit=1`)).runs as Json[];
      expect(run).toMatchObject({
        state: 'QUEUED',
        source: 'SCHEDULED_AGENT',
        title: 'Daily review',
        prompt: 'Review open pull requests',
        agent_config: { model_id: 'm1' },
        creator: { uid: `sched-${name}` },
        schedule: { schedule_id: id, schedule_name: 'Daily review', cron_schedule: '* * * * *', due_at: minute(1) },
      });
      expect((await ok('GET', `/agent/schedules/${id}`)).history).toEqual({ last_ran: minute(3), next_run: minute(4) });
      expect((await ok('GET', '/agent/runs?schedule_id=other')).runs).toEqual([]);
      expect((await ok('GET', '/agent/runs?source=SCHEDULED_AGENT&limit=100')).runs).toHaveLength(3);
    });

    it('after downtime, starts the latest missed due time once if within the catch-up window, else skips and says so', async () => {
      const id = (await ok('POST', '/agent/schedules', { ...daily, cron_schedule: '*/5 * * * *' })).id as string;
      // Down from 09:00 to 09:17: 09:05, 09:10 and 09:15 were missed; only 09:15 starts a run.
      now = T0 + 17 * MINUTE;
      expect(await scheduler().tick()).toEqual({ started: 1, missed: 0 });
      expect(await scheduledRuns(id)).toEqual([minute(15)]);
      expect((await ok('GET', `/agent/schedules/${id}`)).history).toEqual({ last_ran: minute(15), next_run: minute(20) });
      // A daily schedule whose 10:00 passed while nothing ran for 90 minutes (the window is one hour): nothing starts,
      // the skip is recorded, and the next due time runs.
      const dailyId = (await ok('POST', '/agent/schedules', { ...daily, cron_schedule: '0 10 * * *' })).id as string;
      now = T0 + 150 * MINUTE;
      expect(await scheduler().tick()).toEqual({ started: 1, missed: 1 });
      const skipped = await ok('GET', `/agent/schedules/${dailyId}`);
      expect(skipped.last_spawn_error).toMatch(/due at 2026-03-02T10:00:00.000Z.*catch-up window.*skipped/);
      expect(skipped.history).toEqual({ last_ran: null, next_run: '2026-03-03T10:00:00.000Z' });
      expect(await scheduledRuns(dailyId)).toEqual([]);
      now = Date.parse('2026-03-03T10:00:30.000Z');
      expect(await scheduler().tick()).toEqual({ started: 2, missed: 0 });
      expect(await ok('GET', `/agent/schedules/${dailyId}`)).toMatchObject({
        last_spawn_error: null,
        history: { last_ran: '2026-03-03T10:00:00.000Z' },
      });
      expect(await scheduledRuns(dailyId)).toEqual(['2026-03-03T10:00:00.000Z']);
    });

    it('records why a due time could not start a run, and tries again at the next one', async () => {
      await seedEnvironments(store, team, 'env-a');
      const id = (await ok('POST', '/agent/schedules', { ...daily, cron_schedule: '* * * * *', agent_config: { environment_id: 'env-a' } }))
        .id as string;
      await store.environments.delete(team, 'env-a');
      now = T0 + MINUTE;
      expect(await scheduler().tick()).toEqual({ started: 0, missed: 1 });
      const failed = await ok('GET', `/agent/schedules/${id}`);
      expect(failed.last_spawn_error).toMatch(/^due at 2026-03-02T09:01:00.000Z: .*environment_id/);
      expect(failed.history).toEqual({ last_ran: null, next_run: minute(2) });
      await seedEnvironments(store, team, 'env-a');
      now = T0 + 2 * MINUTE;
      expect(await scheduler().tick()).toEqual({ started: 1, missed: 0 });
      expect(await ok('GET', `/agent/schedules/${id}`)).toMatchObject({ last_spawn_error: null, history: { last_ran: minute(2) } });
    });

    it('starts nothing for a paused or deleted schedule, nor for a due time a save already claimed', async () => {
      const id = (await ok('POST', '/agent/schedules', { ...daily, cron_schedule: '* * * * *' })).id as string;
      await ok('POST', `/agent/schedules/${id}/pause`);
      now = T0 + 2 * MINUTE;
      expect(await scheduler().tick()).toEqual({ started: 0, missed: 0 });
      await ok('POST', `/agent/schedules/${id}/resume`);
      now = T0 + 3 * MINUTE;
      expect(await scheduler().tick()).toEqual({ started: 1, missed: 0 });
      // A due time is claimed once: the store refuses a second run for it, even after the schedule moved back.
      const s = await store.schedules.get(team, id);
      const again = await store.schedules.fire({
        teamUid: team,
        scheduleId: id,
        expectNextDueAt: s?.nextDueAt as string,
        nextDueAt: s?.nextDueAt ?? null,
        dueAt: minute(3),
        run: {
          run: {
            ...(await store.runs.list({ teamUid: team, filter: { scheduleId: id }, sortBy: 'created_at', order: 'asc', limit: 1 }))[0]!,
            id: 'dup',
          },
          attachments: [],
        },
      });
      expect(again).toEqual({ kind: 'advanced' });
      expect(
        await store.schedules.fire({ teamUid: team, scheduleId: id, expectNextDueAt: '2000-01-01T00:00:00.000Z', nextDueAt: null }),
      ).toEqual({ kind: 'stale' });
      await ok('DELETE', `/agent/schedules/${id}`);
      now = T0 + 10 * MINUTE;
      expect(await scheduler().tick()).toEqual({ started: 0, missed: 0 });
      expect(await scheduledRuns(id)).toEqual([minute(3)]);
    });

    it('applies schedule files (schedules/<name>.yaml): created, unchanged, updated, refused by the API, pruned', async () => {
      await seedEnvironments(store, team, 'env-a');
      const factory = (await ok('POST', '/factories', { name: 'f' })).uid as string;
      const nightly = {
        name: 'nightly',
        cron_schedule: '0 2 * * *',
        time_zone: 'Europe/Paris',
        prompt: 'Sweep',
        config: { environment_id: 'env-a' },
      };
      const apply = (body: unknown) => call('POST', `/factories/${factory}/apply`, body);
      const first = await apply({ schedules: [nightly] });
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body.schedules).toEqual([{ name: 'nightly', action: 'create', id: expect.any(String), changes: [] }]);
      const id = first.body.schedules[0].id as string;
      const made = await ok('GET', `/agent/schedules/${id}`);
      expect(made).toMatchObject({
        name: 'nightly',
        cron_schedule: '0 2 * * *',
        time_zone: 'Europe/Paris',
        enabled: true,
        agent_config: { environment_id: 'env-a' },
        factory_uid: factory,
        definition_file: 'schedules/nightly.yaml',
        // 02:00 in Paris (CET, UTC+1) on the next day.
        history: { last_ran: null, next_run: '2026-03-03T01:00:00.000Z' },
      });
      expect((await apply({ schedules: [nightly] })).body.schedules).toEqual([{ name: 'nightly', action: 'unchanged', id, changes: [] }]);
      const paused = await apply({ schedules: [{ ...nightly, enabled: false }] });
      expect(paused.body.schedules).toEqual([{ name: 'nightly', action: 'update', id, changes: ['enabled'] }]);
      expect((await ok('GET', `/agent/schedules/${id}`)).history.next_run).toBeNull();

      // The API refuses to change it: its file does.
      for (const [method, path, body] of [
        ['PUT', `/agent/schedules/${id}`, { ...daily, enabled: true }],
        ['POST', `/agent/schedules/${id}/resume`, undefined],
        ['DELETE', `/agent/schedules/${id}`, undefined],
      ] as const) {
        const res = await call(method, path, body);
        expect(res.status, `${method} ${path}`).toBe(409);
        expect(res.body.detail).toContain('schedules/nightly.yaml');
      }
      // Every problem at its path; nothing written (the files' shapes are checked before the plan).
      const unreadable = await apply({ schedules: [{ ...nightly, cron_schedule: 'nightly' }] });
      expect(unreadable.status).toBe(400);
      expect((unreadable.body.errors as Json[]).map((e) => e.path)).toEqual(['schedules.0.cron_schedule']);
      const bad = await apply({
        schedules: [
          { ...nightly, name: 'nowhere', config: { environment_id: 'gone' } },
          { name: 'empty', cron_schedule: '@daily' },
          nightly,
        ],
      });
      expect(bad.status).toBe(400);
      expect((bad.body.errors as Json[]).map((e) => e.path).sort()).toEqual(['schedules.0.config.environment_id', 'schedules.1.prompt']);
      expect(((await ok('GET', '/agent/schedules')).schedules as Json[]).map((x) => x.name)).toEqual(['nightly']);
      // A file gone: an error without --prune, deleted with it.
      expect((await apply({ schedules: [] })).status).toBe(400);
      const pruned = await apply({ schedules: [], prune: true });
      expect(pruned.body.schedules).toEqual([{ name: 'nightly', action: 'delete', id, changes: [] }]);
      expect((await call('GET', `/agent/schedules/${id}`)).status).toBe(404);
    });
  });
}
