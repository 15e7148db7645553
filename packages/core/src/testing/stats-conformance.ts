import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createAgentRun } from '../app/create-agent-run.js';
import { createApiKey } from '../auth/api-keys.js';
import type { CallbackEndpointRecord } from '../callbacks/records.js';
import type { DeliveryRecord } from '../ingress/records.js';
import { RUN_STATES, type RunState, TERMINAL_STATES } from '../models/run-state.js';
import type { RunRecord } from '../run/record.js';
import { LEASED_STATES } from '../run/state-machine.js';
import { bucketIndex, type StatsWindow, statsWindow } from '../stats/buckets.js';
import { DURATION_HISTOGRAM_SIZE, durationBucket } from '../stats/histogram.js';
import { runDurationKey, runDurationMs } from '../stats/keys.js';
import { DELIVERY_STAT_LABELS, type DeliveryStatLabel, type RunDurationGrouping, STATS_RANGES, type StatsRange } from '../stats/ranges.js';
import { CallbackStatsSchema, DeliveryStatsSchema, QueueStatsSchema, RunDurationStatsSchema, RunStatsSchema } from '../stats/wire.js';
import type { RunStateCounts, StatsSpan, WebhookDeliveryCounts } from '../store/stats.js';
import type { Store } from '../store/store.js';
import { isoTime } from '../util/clock.js';
import { base64UrlEncode, newId } from '../util/ids.js';
import { makeRun, testPrincipal } from './fixtures.js';
import { makeDelivery } from './ingress-conformance.js';

/**
 * The stats part (docs/stores.md, "Stats"): every aggregate equals what the records the store
 * returns say, at once after each write (a run that changes state moves between series in the
 * same read), before and after `compact`, and the API answers them in the route table's shapes.
 */

/** Mid-bucket for every range: a Wednesday, 10:37:30 UTC. */
const NOW = Date.UTC(2026, 2, 4, 10, 37, 30);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const spanOf = (teamUid: string, range: StatsRange, now = NOW): StatsSpan & { window: StatsWindow } => {
  const window = statsWindow(range, now);
  return { teamUid, from: isoTime(window.fromMs), to: isoTime(window.toMs), stepSeconds: STATS_RANGES[range].stepSeconds, window };
};
const zeros = (n: number) => new Array<number>(n).fill(0);

/** What `stats.runs` must answer, from the runs as the store returns them. */
function expectedRunCounts(runs: readonly RunRecord[], w: StatsWindow): RunStateCounts {
  const counts = Object.fromEntries(RUN_STATES.map((s) => [s, zeros(w.count)])) as RunStateCounts;
  for (const run of runs) {
    const i = bucketIndex(w, Date.parse(run.createdAt));
    if (i >= 0) counts[run.state][i] = (counts[run.state][i] ?? 0) + 1;
  }
  return counts;
}

/** What `stats.runDurations` must answer, sorted by key. */
function expectedDurations(runs: readonly RunRecord[], w: StatsWindow, by: RunDurationGrouping) {
  const groups = new Map<string, number[]>();
  for (const run of runs) {
    if (!TERMINAL_STATES.has(run.state) || run.startedAt === null || bucketIndex(w, Date.parse(run.createdAt)) < 0) continue;
    const key = runDurationKey(run, by);
    const h = groups.get(key) ?? zeros(DURATION_HISTOGRAM_SIZE);
    const b = durationBucket(runDurationMs(run));
    h[b] = (h[b] ?? 0) + 1;
    groups.set(key, h);
  }
  return [...groups].map(([key, histogram]) => ({ key, histogram })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

const byKey = <T extends { key: string }>(groups: T[]) => [...groups].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
const byWebhook = (hooks: WebhookDeliveryCounts[]) => [...hooks].sort((a, b) => (a.webhookUid < b.webhookUid ? -1 : 1));

/** One webhook's series: `counts` maps a label to [bucket, n] pairs. */
function series(w: StatsWindow, counts: Partial<Record<DeliveryStatLabel, [number, number][]>>): Record<DeliveryStatLabel, number[]> {
  const out = Object.fromEntries(DELIVERY_STAT_LABELS.map((l) => [l, zeros(w.count)])) as Record<DeliveryStatLabel, number[]>;
  for (const [label, pairs] of Object.entries(counts) as [DeliveryStatLabel, [number, number][]][])
    for (const [i, n] of pairs) out[label][i] = (out[label][i] ?? 0) + n;
  return out;
}

export function describeStatsConformance(current: () => Store): void {
  describe('stats', () => {
    /** Every aggregate of the team's runs, as the store answers them, in a comparable order. */
    const runAggregates = async (store: Store, teamUid: string) => {
      const out: Record<string, unknown> = {};
      for (const range of ['1h', '24h', '7d'] as const) {
        const span = spanOf(teamUid, range);
        out[`${range} runs`] = await store.stats.runs(span);
        for (const by of ['harness', 'name'] as const) out[`${range} ${by}`] = byKey(await store.stats.runDurations({ ...span, by }));
      }
      return out;
    };
    /** The same, from the records the store returns. */
    const expectedAggregates = async (store: Store, ids: readonly string[]) => {
      const runs = (await Promise.all(ids.map((id) => store.runs.get(id)))).filter((r): r is RunRecord => r !== undefined);
      const out: Record<string, unknown> = {};
      for (const range of ['1h', '24h', '7d'] as const) {
        const { window } = spanOf('', range);
        out[`${range} runs`] = expectedRunCounts(runs, window);
        for (const by of ['harness', 'name'] as const) out[`${range} ${by}`] = expectedDurations(runs, window, by);
      }
      return out;
    };

    it("counts the team's runs by bucket of creation under their current state, and moves a run between series at once", async () => {
      const store = current();
      const team = `stats-${newId()}`;
      const { window } = spanOf(team, '1h');
      const run = (createdMs: number, more: Partial<RunRecord> = {}) => {
        const r = makeRun({ teamUid: team, createdAt: isoTime(createdMs), updatedAt: isoTime(createdMs), ...more });
        return store.runs.create({ run: r, attachments: [] }).then(() => r);
      };
      const first = await run(window.fromMs);
      await run(window.fromMs + 59_999, { state: 'SUCCEEDED', startedAt: isoTime(window.fromMs) });
      const last = await run(NOW);
      await run(window.fromMs - 1); // before the first bucket
      await store.runs.create({
        run: makeRun({ teamUid: `${team}-other`, createdAt: isoTime(NOW), updatedAt: isoTime(NOW) }),
        attachments: [],
      });

      const counts = await store.stats.runs(spanOf(team, '1h'));
      expect(Object.keys(counts).sort()).toEqual([...RUN_STATES].sort());
      for (const state of RUN_STATES) expect(counts[state]).toHaveLength(60);
      expect(counts.QUEUED[0]).toBe(1);
      expect(counts.SUCCEEDED[0]).toBe(1);
      expect(counts.QUEUED[59]).toBe(1);
      expect(
        Object.values(counts)
          .flat()
          .reduce((a, b) => a + b, 0),
      ).toBe(3);

      // A run that changes state moves between series in the very next read.
      const moved = await store.runs.transition({
        runId: last.id,
        expect: { state: 'QUEUED' },
        patch: { state: 'INPROGRESS', startedAt: isoTime(NOW + 1000) },
        now: isoTime(NOW + 1000),
      });
      expect(moved.result?.applied).toBe(true);
      const after = await store.stats.runs(spanOf(team, '1h'));
      expect([after.QUEUED[59], after.INPROGRESS[59]]).toEqual([0, 1]);
      await store.runs.transition({
        runId: last.id,
        expect: { state: 'INPROGRESS' },
        patch: { state: 'FAILED' },
        now: isoTime(NOW + 61_000),
      });
      expect((await store.stats.runs(spanOf(team, '1h'))).FAILED[59]).toBe(1);
      expect(byKey(await store.stats.runDurations({ ...spanOf(team, '1h'), by: 'harness' })).map((g) => g.key)).toEqual(['oz']);

      // Folding changes no answer.
      const before = await runAggregates(store, team);
      await store.stats.compact({ now: isoTime(NOW + 2 * MINUTE) });
      expect(await runAggregates(store, team)).toEqual(before);
      expect(first.state).toBe('QUEUED');
    });

    it('times a run from its start to when it ended, grouped by harness or config name', async () => {
      const store = current();
      const team = `stats-${newId()}`;
      const ended = async (config: RunRecord['config'], ms: number, state: RunState = 'SUCCEEDED') => {
        const r = makeRun({
          teamUid: team,
          config,
          state,
          createdAt: isoTime(NOW - HOUR),
          startedAt: isoTime(NOW - HOUR),
          updatedAt: isoTime(NOW - HOUR + ms),
        });
        await store.runs.create({ run: r, attachments: [] });
        return r;
      };
      await ended({ name: 'nightly' }, 1000);
      await ended({ name: 'nightly', harness: { type: 'claude' } }, 10_000, 'FAILED');
      await ended({ harness: { type: 'claude' } }, 20_000, 'ERROR');
      const requeued = await ended({ name: 'nightly' }, 5000);
      // Not counted: never started, not ended, or created before the range.
      await store.runs.create({
        run: makeRun({ teamUid: team, state: 'CANCELLED', createdAt: isoTime(NOW - HOUR), updatedAt: isoTime(NOW) }),
        attachments: [],
      });
      await store.runs.create({
        run: makeRun({
          teamUid: team,
          state: 'INPROGRESS',
          createdAt: isoTime(NOW - HOUR),
          startedAt: isoTime(NOW - HOUR),
          updatedAt: isoTime(NOW),
        }),
        attachments: [],
      });

      const span = spanOf(team, '24h');
      const groups = async (by: RunDurationGrouping) =>
        byKey(await store.stats.runDurations({ ...span, by })).map((g) => ({
          key: g.key,
          runs: g.histogram.reduce((a, b) => a + b, 0),
          histogram: g.histogram,
        }));
      const h = (...ms: number[]) => {
        const out = zeros(DURATION_HISTOGRAM_SIZE);
        for (const d of ms) out[durationBucket(d)] = (out[durationBucket(d)] ?? 0) + 1;
        return out;
      };
      expect(await groups('harness')).toEqual([
        { key: 'claude', runs: 2, histogram: h(10_000, 20_000) },
        { key: 'oz', runs: 2, histogram: h(1000, 5000) },
      ]);
      expect(await groups('name')).toEqual([
        { key: '', runs: 1, histogram: h(20_000) },
        { key: 'nightly', runs: 3, histogram: h(1000, 10_000, 5000) },
      ]);
      // A follow-up queues an ended run again: it leaves the durations until it ends anew.
      await store.runs.transition({ runId: requeued.id, expect: { state: 'SUCCEEDED' }, patch: { state: 'QUEUED' }, now: isoTime(NOW) });
      expect((await groups('harness')).find((g) => g.key === 'oz')?.histogram).toEqual(h(1000));
      expect(await store.stats.runDurations({ ...spanOf(`${team}-other`, '24h'), by: 'harness' })).toEqual([]);
    });

    it('agrees with the records it counts, for random runs and changes of state, before and after compact', async () => {
      const store = current();
      const runArb = fc.record({
        createdAgoMs: fc.integer({ min: 0, max: 8 * DAY }),
        state: fc.constantFrom(...RUN_STATES),
        started: fc.boolean(),
        durationMs: fc.integer({ min: 0, max: 3 * DAY }),
        name: fc.constantFrom(undefined, 'a', 'b'),
        harness: fc.constantFrom(undefined, 'claude', 'oz'),
      });
      const change = fc.record({ pick: fc.nat(), to: fc.constantFrom(...RUN_STATES), laterMs: fc.integer({ min: 0, max: DAY }) });
      await fc.assert(
        fc.asyncProperty(fc.array(runArb, { minLength: 1, maxLength: 25 }), fc.array(change, { maxLength: 10 }), async (specs, changes) => {
          const team = `stats-${newId()}`;
          const ids: string[] = [];
          for (const s of specs) {
            const created = NOW - s.createdAgoMs;
            const config: RunRecord['config'] = {
              ...(s.name ? { name: s.name } : {}),
              ...(s.harness ? { harness: { type: s.harness } } : {}),
            };
            const r = makeRun({
              teamUid: team,
              config,
              state: s.state,
              createdAt: isoTime(created),
              startedAt: s.started ? isoTime(created) : null,
              updatedAt: isoTime(created + s.durationMs),
            });
            await store.runs.create({ run: r, attachments: [] });
            ids.push(r.id);
          }
          expect(await runAggregates(store, team)).toEqual(await expectedAggregates(store, ids));
          await store.stats.compact({ now: isoTime(NOW) });
          expect(await runAggregates(store, team)).toEqual(await expectedAggregates(store, ids));
          for (const c of changes) {
            const id = ids[c.pick % ids.length] as string;
            const run = (await store.runs.get(id)) as RunRecord;
            await store.runs.transition({
              runId: id,
              expect: { state: run.state },
              patch: { state: c.to, ...(run.startedAt === null && c.to === 'INPROGRESS' ? { startedAt: isoTime(NOW) } : {}) },
              now: isoTime(Date.parse(run.updatedAt) + c.laterMs),
            });
          }
          expect(await runAggregates(store, team)).toEqual(await expectedAggregates(store, ids));
          await store.stats.compact({ now: isoTime(NOW) });
          expect(await runAggregates(store, team)).toEqual(await expectedAggregates(store, ids));
        }),
        { numRuns: 8 },
      );
    });

    it('labels deliveries Accepted, Filtered out, Duplicate, Rejected and Rate limited, per webhook, moving one when it is evaluated', async () => {
      const store = current();
      const team = `stats-${newId()}`;
      const span = spanOf(team, '1h');
      const { window } = span;
      const d = (o: Partial<DeliveryRecord>) =>
        makeDelivery({ teamUid: team, factoryUid: 'f1', webhookUid: `${team}-w1`, receivedAt: isoTime(NOW), ...o });
      const w1 = `${team}-w1`;
      const w2 = `${team}-w2`;
      const first = isoTime(window.fromMs + 30_000);
      // Accepted, awaiting evaluation; accepted with a run; accepted with none (a resend that matched nothing).
      const pending = d({ receivedAt: first });
      expect(await store.deliveries.accept({ delivery: pending })).toEqual({ accepted: true });
      const started = d({});
      const run = makeRun({ teamUid: team, source: 'WEBHOOK' });
      await store.deliveries.accept({ delivery: started, runs: [{ run, attachments: [] }] });
      await store.deliveries.accept({ delivery: d({}), runs: [] });
      await store.deliveries.accept({ delivery: d({ identity: started.identity }), runs: [] });
      await store.deliveries.log(d({ status: 'Rejected (auth)', identity: null, payload: null }));
      await store.deliveries.log(d({ status: 'Rejected (too large)', identity: null, payload: null, webhookUid: w2, factoryUid: 'f2' }));
      // The webhook's rate limit: one admitted, two refused (one of them a rejected entry's).
      const admit = { key: `rate:${w2}`, limit: 1, windowMs: HOUR, now: isoTime(NOW) };
      await store.deliveries.accept({ delivery: d({ webhookUid: w2, factoryUid: 'f2' }), runs: [], admit });
      expect(await store.deliveries.accept({ delivery: d({ webhookUid: w2, factoryUid: 'f2' }), runs: [], admit })).toMatchObject({
        accepted: false,
        rateLimited: true,
      });
      expect(
        await store.deliveries.log(d({ webhookUid: w2, factoryUid: 'f2', status: 'Rejected (auth)', payload: null }), admit),
      ).toMatchObject({
        logged: false,
      });
      // Another team's and another range's are not counted.
      await store.deliveries.log(
        makeDelivery({ teamUid: `${team}-other`, webhookUid: w1, status: 'Duplicate', payload: null, receivedAt: isoTime(NOW) }),
      );
      await store.deliveries.log(d({ status: 'Duplicate', payload: null, receivedAt: isoTime(window.fromMs - 1) }));

      const expected = (pendingLabel: 'Accepted' | 'Filtered out') => {
        const at0 = (label: DeliveryStatLabel): [number, number][] => (label === pendingLabel ? [[0, 1]] : []);
        return [
          {
            factoryUid: 'f1',
            webhookUid: w1,
            byLabel: series(window, {
              Accepted: [[59, 1], ...at0('Accepted')],
              'Filtered out': [[59, 1], ...at0('Filtered out')],
              Duplicate: [[59, 1]],
              Rejected: [[59, 1]],
            }),
          },
          {
            factoryUid: 'f2',
            webhookUid: w2,
            byLabel: series(window, { 'Filtered out': [[59, 1]], Rejected: [[59, 1]], 'Rate limited': [[59, 2]] }),
          },
        ];
      };
      expect(byWebhook(await store.stats.deliveries(span))).toEqual(expected('Accepted'));
      expect(await store.stats.deliveries({ ...span, webhookUid: w2 })).toEqual([expected('Accepted')[1]]);
      await store.stats.compact({ now: isoTime(NOW) });
      expect(byWebhook(await store.stats.deliveries(span))).toEqual(expected('Accepted'));

      // Evaluated without a run: it moves from Accepted to Filtered out in the next read.
      const claimed = await store.deliveries.claimEvaluations({ limit: 100, leaseMs: MINUTE, now: isoTime(NOW) });
      expect(claimed.map((c) => c.id)).toContain(pending.id);
      await store.deliveries.completeEvaluations(claimed.map((c) => ({ deliveryId: c.id, runs: [] })));
      expect(byWebhook(await store.stats.deliveries(span))).toEqual(expected('Filtered out'));
      await store.stats.compact({ now: isoTime(NOW + MINUTE) });
      expect(byWebhook(await store.stats.deliveries(span))).toEqual(expected('Filtered out'));
      // The 7d range sees the same, in its own buckets; an entry the log's retention removes is no longer counted.
      const week = spanOf(team, '7d');
      const inWeek = (await store.stats.deliveries(week)).find((h) => h.webhookUid === w1);
      expect(inWeek?.byLabel.Duplicate.reduce((a, b) => a + b, 0)).toBe(2);
      await store.deliveries.sweep(isoTime(NOW + DAY), 0);
      expect(await store.stats.deliveries(span)).toEqual([
        { factoryUid: 'f2', webhookUid: w2, byLabel: series(window, { 'Rate limited': [[59, 2]] }) },
      ]);
      await store.stats.compact({ now: isoTime(NOW + 2 * MINUTE) });
      expect(await store.stats.deliveries(span)).toEqual([
        { factoryUid: 'f2', webhookUid: w2, byLabel: series(window, { 'Rate limited': [[59, 2]] }) },
      ]);
    });

    it("tells the team's queue by host, its oldest run, and how many runs workers hold", async () => {
      const store = current();
      const team = `stats-${newId()}`;
      expect(await store.stats.queue(team)).toEqual({ queued: 0, oldestQueuedAt: null, running: 0, byHost: [] });
      const add = (state: RunState, createdMs: number, host?: string, teamUid = team) =>
        store.runs.create({
          run: makeRun({
            teamUid,
            state,
            createdAt: isoTime(createdMs),
            updatedAt: isoTime(createdMs),
            config: host === undefined ? {} : { worker_host: host },
          }),
          attachments: [],
        });
      await add('QUEUED', NOW - 5000);
      await add('QUEUED', NOW - 9000, 'gpu');
      await add('QUEUED', NOW - 1000, 'gpu');
      await add('QUEUED', NOW - 20 * DAY, '');
      await add('QUEUED', NOW - 30 * DAY, undefined, `${team}-other`);
      for (const state of RUN_STATES) if (state !== 'QUEUED') await add(state, NOW);
      const q = await store.stats.queue(team);
      expect({ ...q, byHost: [...q.byHost].sort((a, b) => (a.workerHost ?? '').localeCompare(b.workerHost ?? '')) }).toEqual({
        queued: 4,
        oldestQueuedAt: isoTime(NOW - 20 * DAY),
        running: LEASED_STATES.size,
        byHost: [
          { workerHost: null, queued: 2, oldestQueuedAt: isoTime(NOW - 20 * DAY) },
          { workerHost: 'gpu', queued: 2, oldestQueuedAt: isoTime(NOW - 9000) },
        ],
      });
    });

    it("counts each callback endpoint's attempts in the range, with its last failure", async () => {
      const store = current();
      const team = `stats-${newId()}`;
      const endpoint = (id: string): CallbackEndpointRecord => ({
        id,
        teamUid: team,
        factoryUid: null,
        url: `https://hooks.example.com/${id}`,
        description: '',
        eventTypes: [],
        secretCiphertext: 'sealed',
        enabled: true,
        disabledReason: null,
        failingSince: null,
        createdAt: isoTime(NOW - DAY),
        updatedAt: isoTime(NOW - DAY),
      });
      const failing = `cb-${newId()}`;
      const quiet = `cb-${newId()}`;
      await store.callbacks.createEndpoint(endpoint(failing), 10);
      await store.callbacks.createEndpoint(endpoint(quiet), 10);
      await store.runs.create({
        run: makeRun({ teamUid: team, createdAt: isoTime(NOW - 3 * DAY), updatedAt: isoTime(NOW - 3 * DAY) }),
        attachments: [],
      });
      const attempt = async (at: number, ok: boolean, error: string | null) => {
        const claimUntil = isoTime(at + MINUTE);
        const claimed = (await store.callbacks.claimDue({ now: isoTime(at), limit: 10, claimUntil })).filter(
          (c) => c.delivery.endpointId === failing,
        );
        expect(claimed).toHaveLength(1);
        const n = (claimed[0]?.delivery.attempts ?? 0) + 1;
        await store.callbacks.recordAttempt({
          claimedUntil: claimUntil,
          attempt: {
            deliveryId: claimed[0]?.delivery.id as string,
            attempt: n,
            at: isoTime(at),
            statusCode: ok ? 200 : 500,
            durationMs: 5,
            error,
            ok,
          },
          status: ok ? 'succeeded' : 'pending',
          nextAttemptAt: ok ? null : isoTime(at),
          now: isoTime(at),
          endpoint: { failingSince: ok ? null : isoTime(at), disable: false },
        });
      };
      await attempt(NOW - 2 * DAY, false, 'HTTP 502'); // before the 24h range
      await attempt(NOW - 2 * HOUR, false, 'HTTP 500');
      await attempt(NOW - HOUR, false, 'timeout after 10000 ms');
      await attempt(NOW - 1000, true, null);
      const got = await store.stats.callbacks(spanOf(team, '24h'));
      expect([...got].sort((a, b) => b.failed - a.failed)).toEqual([
        {
          endpointId: failing,
          url: `https://hooks.example.com/${failing}`,
          delivered: 1,
          failed: 2,
          lastFailureAt: isoTime(NOW - HOUR),
          lastError: 'timeout after 10000 ms',
        },
        { endpointId: quiet, url: `https://hooks.example.com/${quiet}`, delivered: 0, failed: 0, lastFailureAt: null, lastError: null },
      ]);
      expect(await store.stats.callbacks(spanOf(`${team}-other`, '24h'))).toEqual([]);
    });

    it('answers the stats routes in their shapes, for the caller’s team and scopes; a bad range is a 400', async () => {
      const store = current();
      const team = `stats-${newId()}`;
      const app = createAgentRun({
        store,
        secretKey: base64UrlEncode(new Uint8Array(32).fill(9)).replace(/-/g, '+').replace(/_/g, '/'),
        clock: { now: () => NOW },
        maintenanceTasks: [],
        onError: (e) => {
          throw e;
        },
      });
      const key = await createApiKey(store.apiKeys, testPrincipal({ uid: `stats-${team}`, team_uid: team }));
      const runsOnly = await createApiKey(store.apiKeys, testPrincipal({ uid: `stats-r-${team}`, team_uid: team }), {
        scopes: ['read_runs'],
      });
      const get = async (path: string, auth = key) => {
        const res = await app.fetch(new Request(`http://agentrun.test/api/v1${path}`, { headers: { authorization: `Bearer ${auth}` } }));
        return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Record<string, unknown> };
      };
      await store.runs.create({
        run: makeRun({ teamUid: team, createdAt: isoTime(NOW - 30 * MINUTE), updatedAt: isoTime(NOW) }),
        attachments: [],
      });

      const runs = await get('/stats/runs?range=1h');
      expect(runs.status).toBe(200);
      const parsed = v.parse(RunStatsSchema, runs.body);
      expect(parsed).toMatchObject({ range: '1h', step_seconds: 60, from: '2026-03-04T09:38:00.000Z', to: '2026-03-04T10:38:00.000Z' });
      expect(parsed.buckets).toHaveLength(60);
      expect(parsed.buckets[59]).toBe('2026-03-04T10:37:00.000Z');
      expect(parsed.by_state.QUEUED[29]).toBe(1);
      const day = v.parse(RunStatsSchema, (await get('/stats/runs')).body);
      expect([day.range, day.step_seconds, day.buckets.length, day.to]).toEqual(['24h', 900, 96, '2026-03-04T10:45:00.000Z']);
      const week = v.parse(RunStatsSchema, (await get('/stats/runs?range=7d')).body);
      expect([week.step_seconds, week.buckets.length, week.to]).toEqual([7200, 84, '2026-03-04T12:00:00.000Z']);

      expect(v.parse(RunDurationStatsSchema, (await get('/stats/run-durations?by=name')).body)).toMatchObject({ by: 'name', groups: [] });
      expect(v.parse(DeliveryStatsSchema, (await get('/stats/deliveries?range=1h&webhook_uid=w1')).body)).toMatchObject({ webhooks: [] });
      expect(v.parse(QueueStatsSchema, (await get('/stats/queue')).body)).toEqual({
        queued: 1,
        oldest_queued_at: isoTime(NOW - 30 * MINUTE),
        running: 0,
        by_host: [{ worker_host: null, queued: 1, oldest_queued_at: isoTime(NOW - 30 * MINUTE) }],
      });
      expect(v.parse(CallbackStatsSchema, (await get('/stats/callbacks?range=7d')).body)).toMatchObject({ range: '7d', endpoints: [] });

      for (const bad of [
        '/stats/runs?range=2h',
        '/stats/runs?range=',
        '/stats/runs?rang=1h',
        '/stats/run-durations?by=model',
        '/stats/deliveries?webhook_uid=',
      ]) {
        const res = await get(bad);
        expect(res.status, bad).toBe(400);
        expect(res.type).toContain('application/problem+json');
      }
      // A key that reads runs only does not read the deliveries' or callbacks' stats.
      expect((await get('/stats/runs', runsOnly)).status).toBe(200);
      expect((await get('/stats/deliveries', runsOnly)).status).toBe(403);
      expect((await get('/stats/callbacks', runsOnly)).status).toBe(403);
      // Writes the keys' last use now, not from a timer after the suite closed the store.
      await app.close({ closeStore: false });
    });
  });
}
