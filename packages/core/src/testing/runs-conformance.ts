import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RUN_SOURCES, RUN_STATES, type RunState } from '../models/run-state.js';
import {
  compareRuns,
  isAfterPosition,
  matchesRunFilter,
  RUN_SORT_KEYS,
  type RunFilter,
  type RunListQuery,
  sortValue,
} from '../run/list-query.js';
import type { RunRecord } from '../run/record.js';
import { CLAIM_AND_START } from '../run/state-machine.js';
import type { Store } from '../store/store.js';
import { isoTime } from '../util/clock.js';
import { newId } from '../util/ids.js';
import { makeRun } from './fixtures.js';
import { describeListWalkConformance } from './list-walk-conformance.js';
import type { StoreConformanceOptions } from './store-conformance.js';

const T0 = Date.UTC(2026, 0, 1);
const at = (ms: number) => isoTime(T0 + ms);
/** The list property's time per case: a fresh store and up to 25 runs, on a loaded PostgreSQL well under this. */
const LIST_CASE_MS = 1_500;

/**
 * The runs part of the store conformance suite (see `describeStoreConformance`): round trips,
 * team scoping and copies, compare-and-set under contention, claims and leases, and `runs.list`
 * against the reference semantics. The list property test opens stores of its own (`options`).
 */
export function describeRunsConformance(current: () => Store, options: StoreConformanceOptions): void {
  describe('runs.create and runs.get', () => {
    it('stores every field and returns it unchanged', async () => {
      const store = current();
      const run = makeRun({
        startedAt: at(5),
        statusMessage: { message: 'hi', error_code: 'x', retryable: false },
        config: { name: 'n', mcp_servers: { gh: { url: 'https://mcp.example/sse', headers: { a: 'b' } } }, idle_timeout_minutes: 5 },
        skill: { spec: 'o/r:skill', name: 'skill' },
        trigger: { factory_uid: 'f', automation_id: 'a', webhook_uid: 'w', delivery_id: 'd' },
        factoryUid: 'f',
        agentIdentityUid: 'agent-1',
        parentRunId: 'p',
        ancestorRunIds: ['p', 'gp'],
        requestUsage: { compute_cost: 1.25, inference_cost_usd: 0.5 },
        sessionId: 's',
        sessionLink: 'https://s',
        attachments: [{ file_name: 'a.txt', mime_type: 'text/plain', size: 3 }],
        lease: null,
      });
      const out = await store.runs.create({
        run,
        attachments: [{ runId: run.id, fileName: 'a.txt', mimeType: 'text/plain', data: new Uint8Array([1, 2, 255]) }],
      });
      expect(out.result).toEqual(run);
      expect(await store.runs.get(run.id)).toEqual(run);
      expect(await store.runs.get(run.id, 'team-1')).toEqual(run);
    });

    it('hides a run from other teams', async () => {
      const store = current();
      const run = makeRun();
      await store.runs.create({ run, attachments: [] });
      expect(await store.runs.get(run.id, 'team-2')).toBeUndefined();
      expect(await store.runs.get('no-such-run')).toBeUndefined();
    });

    it('returns copies: changing a returned run does not change the stored one', async () => {
      const store = current();
      const run = makeRun();
      await store.runs.create({ run, attachments: [] });
      const got = (await store.runs.get(run.id)) as RunRecord;
      got.state = 'FAILED';
      got.config.name = 'changed';
      expect(await store.runs.get(run.id)).toEqual(run);
    });

    it('stores attachments with the run, scoped to its team', async () => {
      const store = current();
      const run = makeRun();
      const data = new Uint8Array([0, 1, 2, 3, 254, 255]);
      await store.runs.create({ run, attachments: [{ runId: run.id, fileName: 'x.bin', mimeType: 'application/octet-stream', data }] });
      const a = await store.runs.getAttachment('team-1', run.id, 'x.bin');
      expect(a?.mimeType).toBe('application/octet-stream');
      expect([...(a?.data ?? [])]).toEqual([...data]);
      expect(await store.runs.getAttachment('team-2', run.id, 'x.bin')).toBeUndefined();
      expect(await store.runs.getAttachment('team-1', run.id, 'y.bin')).toBeUndefined();
    });
  });

  describe('runs.transition (compare-and-set)', () => {
    it('applies the patch when the run is in the expected state and advances updatedAt', async () => {
      const store = current();
      const run = makeRun();
      await store.runs.create({ run, attachments: [] });
      const out = await store.runs.transition({
        runId: run.id,
        expect: { state: 'QUEUED' },
        patch: { state: 'CANCELLED', statusMessage: { message: 'bye' } },
        now: at(1000),
      });
      expect(out.result).toMatchObject({
        applied: true,
        run: { state: 'CANCELLED', statusMessage: { message: 'bye' }, updatedAt: at(1000) },
      });
      expect(await store.runs.get(run.id)).toMatchObject({ state: 'CANCELLED', updatedAt: at(1000), createdAt: run.createdAt });
    });

    it('sets and keeps request_usage (a number of each field, as given)', async () => {
      const store = current();
      const run = makeRun({ state: 'INPROGRESS' });
      await store.runs.create({ run, attachments: [] });
      const requestUsage = { compute_cost: 0.1 + 0.2, platform_cost_usd: 1e12, inference_cost: 0 };
      const out = await store.runs.transition({ runId: run.id, expect: { state: 'INPROGRESS' }, patch: { requestUsage }, now: at(1) });
      expect(out.result).toMatchObject({ applied: true, run: { requestUsage } });
      await store.runs.transition({
        runId: run.id,
        expect: { state: 'INPROGRESS' },
        patch: { statusMessage: { message: 'm' } },
        now: at(2),
      });
      expect((await store.runs.get(run.id))?.requestUsage).toEqual(requestUsage);
    });

    it('refuses when the state differs, returning the run as it is', async () => {
      const store = current();
      const run = makeRun({ state: 'INPROGRESS' });
      await store.runs.create({ run, attachments: [] });
      const out = await store.runs.transition({ runId: run.id, expect: { state: 'QUEUED' }, patch: { state: 'CANCELLED' }, now: at(1) });
      expect(out.result).toEqual({ applied: false, run });
      expect(await store.runs.get(run.id)).toEqual(run);
    });

    it('refuses for an unknown run or another team', async () => {
      const store = current();
      const run = makeRun();
      await store.runs.create({ run, attachments: [] });
      const unknown = await store.runs.transition({
        runId: 'nope',
        expect: { state: 'QUEUED' },
        patch: { state: 'CANCELLED' },
        now: at(1),
      });
      expect(unknown.result).toEqual({ applied: false, run: undefined });
      const other = await store.runs.transition({
        runId: run.id,
        teamUid: 'team-2',
        expect: { state: 'QUEUED' },
        patch: { state: 'CANCELLED' },
        now: at(1),
      });
      expect(other.result).toEqual({ applied: false, run: undefined });
      expect((await store.runs.get(run.id))?.state).toBe('QUEUED');
    });

    it('never moves updatedAt backwards', async () => {
      const store = current();
      const run = makeRun({ updatedAt: at(5000) });
      await store.runs.create({ run, attachments: [] });
      const out = await store.runs.transition({
        runId: run.id,
        expect: { state: 'QUEUED' },
        patch: { state: 'CANCELLED' },
        now: at(1000),
      });
      expect(out.result?.run?.updatedAt).toBe(at(5000));
    });

    it('null clears a field, undefined leaves it', async () => {
      const store = current();
      const run = makeRun({
        state: 'INPROGRESS',
        statusMessage: { message: 'old' },
        sessionId: 's1',
        lease: { workerId: 'w', expiresAt: at(10) },
      });
      await store.runs.create({ run, attachments: [] });
      await store.runs.transition({
        runId: run.id,
        expect: { state: 'INPROGRESS' },
        patch: { statusMessage: null, lease: null },
        now: at(1),
      });
      expect(await store.runs.get(run.id)).toMatchObject({ statusMessage: null, lease: null, sessionId: 's1', state: 'INPROGRESS' });
    });

    it('checks the lease holder for worker writes', async () => {
      const store = current();
      const run = makeRun({ state: 'INPROGRESS', lease: { workerId: 'w1', expiresAt: at(10_000) } });
      await store.runs.create({ run, attachments: [] });
      const wrong = await store.runs.transition({
        runId: run.id,
        expect: { state: 'INPROGRESS', workerId: 'w2' },
        patch: { state: 'SUCCEEDED' },
        now: at(1),
      });
      expect(wrong.result?.applied).toBe(false);
      const right = await store.runs.transition({
        runId: run.id,
        expect: { state: 'INPROGRESS', workerId: 'w1' },
        patch: { state: 'SUCCEEDED', lease: null },
        now: at(1),
      });
      expect(right.result?.applied).toBe(true);
    });

    it('leaseExpiredBy applies only to a lease that has expired', async () => {
      const store = current();
      const run = makeRun({ state: 'INPROGRESS', lease: { workerId: 'w1', expiresAt: at(100) } });
      await store.runs.create({ run, attachments: [] });
      const early = await store.runs.transition({
        runId: run.id,
        expect: { state: 'INPROGRESS', leaseExpiredBy: at(99) },
        patch: { state: 'QUEUED', lease: null },
        now: at(99),
      });
      expect(early.result?.applied).toBe(false);
      const due = await store.runs.transition({
        runId: run.id,
        expect: { state: 'INPROGRESS', leaseExpiredBy: at(100) },
        patch: { state: 'QUEUED', lease: null },
        now: at(100),
      });
      expect(due.result?.applied).toBe(true);
    });

    it('appends a follow-up only when the transition applies', async () => {
      const store = current();
      const run = makeRun({ state: 'SUCCEEDED' });
      await store.runs.create({ run, attachments: [] });
      const f = (message: string, ms: number) => ({ id: newId(), runId: run.id, message, createdAt: at(ms), creatorUid: 'user-1' });
      await store.runs.transition({
        runId: run.id,
        expect: { state: 'QUEUED' },
        patch: { state: 'QUEUED' },
        now: at(1),
        followup: f('lost', 1),
      });
      await store.runs.transition({
        runId: run.id,
        expect: { state: 'SUCCEEDED' },
        patch: { state: 'QUEUED' },
        now: at(2),
        followup: f('one', 2),
      });
      await store.runs.transition({ runId: run.id, expect: { state: 'QUEUED' }, patch: {}, now: at(3), followup: f('two', 3) });
      expect((await store.runs.listFollowups(run.id)).map((x) => x.message)).toEqual(['one', 'two']);
      expect(await store.runs.listFollowups('other')).toEqual([]);
    });

    it('of concurrent transitions from one state, exactly one applies', async () => {
      const store = current();
      const run = makeRun();
      await store.runs.create({ run, attachments: [] });
      const outs = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          store.runs.transition({
            runId: run.id,
            expect: { state: 'QUEUED' },
            patch: { state: 'CANCELLED', statusMessage: { message: `by ${i}` } },
            now: at(i),
          }),
        ),
      );
      expect(outs.filter((o) => o.result?.applied)).toHaveLength(1);
    });
  });

  describe('claiming and leases', () => {
    it('claims the oldest queued run, sets the lease and counts the attempt', async () => {
      const store = current();
      const newer = makeRun({ createdAt: at(20), updatedAt: at(20) });
      const older = makeRun({ createdAt: at(10), updatedAt: at(30) });
      const running = makeRun({ createdAt: at(0), state: 'INPROGRESS' });
      for (const run of [newer, older, running]) await store.runs.create({ run, attachments: [] });
      const claimed = await store.runs.claimNext({ workerId: 'w1', now: at(100), leaseExpiresAt: at(30_100) });
      expect(claimed).toMatchObject({
        id: older.id,
        state: 'CLAIMED',
        attempts: 1,
        lease: { workerId: 'w1', expiresAt: at(30_100) },
        updatedAt: at(100),
      });
      expect(await store.runs.get(older.id)).toEqual(claimed);
      expect((await store.runs.claimNext({ workerId: 'w1', now: at(101), leaseExpiresAt: at(30_101) }))?.id).toBe(newer.id);
      expect(await store.runs.claimNext({ workerId: 'w1', now: at(102), leaseExpiresAt: at(30_102) })).toBeUndefined();
    });

    it('a claim that starts the run (CLAIM_AND_START) leaves it INPROGRESS with its start, and writes both state events in the claim', async () => {
      const store = current();
      const fresh = makeRun({ createdAt: at(10), updatedAt: at(10), statusMessage: { message: 'was re-queued' } });
      const reported = makeRun({
        createdAt: at(20),
        updatedAt: at(20),
        sessionId: 'own',
        sessionLink: 'https://agent.example/s',
        startedAt: at(5),
      });
      for (const run of [fresh, reported]) await store.runs.create({ run, attachments: [] });
      const start = {
        statusMessage: { message: 'Started' },
        startedAt: at(100),
        sessionLinkBase: 'https://agentrun.example/dashboard/runs/',
      };
      const claimed = await store.runs.claimNext({
        workerId: 'w1',
        now: at(100),
        leaseExpiresAt: at(30_100),
        path: CLAIM_AND_START,
        start,
      });
      expect(claimed).toMatchObject({
        id: fresh.id,
        state: 'INPROGRESS',
        attempts: 1,
        lease: { workerId: 'w1', expiresAt: at(30_100) },
        updatedAt: at(100),
        startedAt: at(100),
        statusMessage: { message: 'Started' },
        sessionId: fresh.id,
        sessionLink: `https://agentrun.example/dashboard/runs/${fresh.id}`,
      });
      expect(await store.runs.get(fresh.id)).toEqual(claimed);
      expect((await store.runEvents.list(fresh.id, { limit: 10 })).map(({ type, data, at }) => ({ type, data, at }))).toEqual([
        { type: 'state', at: at(100), data: { from: 'QUEUED', to: 'CLAIMED', status_message: 'was re-queued' } },
        { type: 'state', at: at(100), data: { from: 'CLAIMED', to: 'INPROGRESS', status_message: 'Started' } },
      ]);
      // What the run already has is kept: its session, its link, when it first started.
      const second = await store.runs.claimNext({ workerId: 'w1', now: at(101), leaseExpiresAt: at(30_101), path: CLAIM_AND_START, start });
      expect(second).toMatchObject({ id: reported.id, sessionId: 'own', sessionLink: 'https://agent.example/s', startedAt: at(5) });
      // The plain claim (the default) writes its one event.
      const third = makeRun({ createdAt: at(30) });
      await store.runs.create({ run: third, attachments: [] });
      expect(await store.runs.claimNext({ workerId: 'w1', now: at(102), leaseExpiresAt: at(30_102) })).toMatchObject({ state: 'CLAIMED' });
      expect((await store.runEvents.list(third.id, { limit: 10 })).map((e) => e.data)).toEqual([
        { from: 'QUEUED', to: 'CLAIMED', status_message: null },
      ]);
    });

    it('a claim that asks for follow-ups answers them, oldest first; one that does not, answers the run alone', async () => {
      const store = current();
      const run = makeRun({ createdAt: at(10) });
      await store.runs.create({ run, attachments: [] });
      const followups = [1, 2].map((i) => ({ id: newId(), runId: run.id, message: `f${i}`, createdAt: at(10 + i), creatorUid: 'u1' }));
      for (const followup of followups)
        await store.runs.transition({ runId: run.id, expect: { state: 'QUEUED' }, patch: {}, now: followup.createdAt, followup });
      const claimed = await store.runs.claimNext({ workerId: 'w1', now: at(100), leaseExpiresAt: at(200), followups: true });
      expect(claimed?.followups).toEqual(followups);
      const { followups: _, ...alone } = claimed as NonNullable<typeof claimed>;
      expect(await store.runs.get(run.id)).toEqual(alone);
      const other = makeRun({ createdAt: at(20) });
      await store.runs.create({ run: other, attachments: [] });
      const plain = await store.runs.claimNext({ workerId: 'w1', now: at(101), leaseExpiresAt: at(201) });
      expect(plain).toEqual(await store.runs.get(other.id));
      expect(plain && 'followups' in plain).toBe(false);
    });

    it('a transition that asks for follow-ups answers them when it applies (the outcome: no read of its own)', async () => {
      const store = current();
      const run = makeRun({ state: 'INPROGRESS', lease: { workerId: 'w1', expiresAt: at(1000) } });
      await store.runs.create({ run, attachments: [] });
      const followups = [1, 2].map((i) => ({ id: newId(), runId: run.id, message: `f${i}`, createdAt: at(10 + i), creatorUid: 'u1' }));
      for (const followup of followups)
        await store.runs.transition({
          runId: run.id,
          expect: { state: 'INPROGRESS' },
          patch: {},
          now: followup.createdAt,
          followup,
          transcript: { state: true, events: [] },
        });
      // Refused: no follow-ups.
      const { result: plain } = await store.runs.transition({
        runId: run.id,
        expect: { state: 'QUEUED' },
        patch: { state: 'CLAIMED' },
        now: at(50),
        followups: true,
      });
      expect(plain?.applied).toBe(false);
      expect(plain).not.toHaveProperty('followups');
      const { result } = await store.runs.transition({
        runId: run.id,
        expect: { state: 'INPROGRESS', workerId: 'w1' },
        patch: { state: 'SUCCEEDED', lease: null, statusMessage: { message: 'done' } },
        now: at(100),
        transcript: { state: true },
        followups: true,
      });
      expect(result).toMatchObject({ applied: true, run: { state: 'SUCCEEDED' } });
      // No other write came between: the store can tell its read complete, and answers it.
      expect(result).toEqual({ applied: true, run: await store.runs.get(run.id), followups });
      const again = makeRun({ state: 'INPROGRESS', lease: { workerId: 'w1', expiresAt: at(1000) } });
      await store.runs.create({ run: again, attachments: [] });
      const { result: none } = await store.runs.transition({
        runId: again.id,
        expect: { state: 'INPROGRESS', workerId: 'w1' },
        patch: { state: 'SUCCEEDED', lease: null },
        now: at(100),
        transcript: { state: true },
        followups: true,
      });
      expect(none).toMatchObject({ applied: true, followups: [] });
    });

    it('a transition with a transcript writes its state event (and a follow-up) only when it applies, numbered after the others', async () => {
      const store = current();
      const run = makeRun({ state: 'INPROGRESS', lease: { workerId: 'w1', expiresAt: at(1000) } });
      await store.runs.create({ run, attachments: [] });
      await store.runEvents.append(run.id, [{ at: at(1), type: 'output', data: { text: 'hi' } }]);
      const followup = { id: newId(), runId: run.id, message: 'more', createdAt: at(2), creatorUid: 'u1' };
      const told = { at: at(2), type: 'followup' as const, data: { followup_id: followup.id, message: 'more', creator_uid: 'u1' } };
      // Same state: the follow-up's line only.
      await store.runs.transition({
        runId: run.id,
        expect: { state: 'INPROGRESS' },
        patch: {},
        now: at(2),
        followup,
        transcript: { state: true, events: [told] },
      });
      // Refused (wrong state): nothing.
      await store.runs.transition({
        runId: run.id,
        expect: { state: 'BLOCKED' },
        patch: { state: 'INPROGRESS' },
        now: at(3),
        transcript: { state: true },
      });
      await store.runs.transition({
        runId: run.id,
        expect: { state: 'INPROGRESS', workerId: 'w1' },
        patch: { state: 'SUCCEEDED', lease: null, statusMessage: { message: 'done' } },
        now: at(4),
        transcript: { state: true },
      });
      expect((await store.runEvents.list(run.id, { limit: 10 })).map(({ id, type, data }) => ({ id, type, data }))).toEqual([
        { id: 1, type: 'output', data: { text: 'hi' } },
        { id: 2, type: 'followup', data: told.data },
        { id: 3, type: 'state', data: { from: 'INPROGRESS', to: 'SUCCEEDED', status_message: 'done' } },
      ]);
      // An append after them goes on from there.
      await store.runEvents.append(run.id, [{ at: at(5), type: 'output', data: { text: 'late' } }]);
      expect((await store.runEvents.list(run.id, { after: 3, limit: 10 })).map((e) => e.id)).toEqual([4]);
    });

    it("queueStats: the QUEUED runs of every team and the oldest one's creation, as claims take them", async () => {
      const store = current();
      if (!store.runs.queueStats) return;
      expect(await store.runs.queueStats()).toEqual({ depth: 0, oldestCreatedAt: null });
      const older = makeRun({ createdAt: at(10), updatedAt: at(10), teamUid: 'team-2' });
      const newer = makeRun({ createdAt: at(20), updatedAt: at(20) });
      const running = makeRun({ createdAt: at(0), state: 'INPROGRESS' });
      for (const run of [newer, older, running]) await store.runs.create({ run, attachments: [] });
      expect(await store.runs.queueStats()).toEqual({ depth: 2, oldestCreatedAt: at(10) });
      await store.runs.claimNext({ workerId: 'w1', now: at(100), leaseExpiresAt: at(30_100) });
      expect(await store.runs.queueStats()).toEqual({ depth: 1, oldestCreatedAt: at(20) });
    });

    it('concurrent claims never hand out one run twice', async () => {
      const store = current();
      const runs = Array.from({ length: 6 }, (_, i) => makeRun({ createdAt: at(i) }));
      for (const run of runs) await store.runs.create({ run, attachments: [] });
      const claims = await Promise.all(
        Array.from({ length: 10 }, (_, i) => store.runs.claimNext({ workerId: `w${i}`, now: at(100), leaseExpiresAt: at(1000) })),
      );
      const ids = claims.filter(Boolean).map((r) => r?.id);
      expect(ids).toHaveLength(6);
      expect(new Set(ids).size).toBe(6);
    });

    it('renews only the holder’s lease, leaves updatedAt, and reports the run as it is', async () => {
      const store = current();
      const run = makeRun();
      await store.runs.create({ run, attachments: [] });
      const claimed = await store.runs.claimNext({ workerId: 'w1', now: at(100), leaseExpiresAt: at(200) });
      const renewed = await store.runs.renewLease({ runId: run.id, workerId: 'w1', now: at(150), leaseExpiresAt: at(300) });
      expect(renewed).toMatchObject({ lease: { workerId: 'w1', expiresAt: at(300) }, updatedAt: claimed?.updatedAt });
      const stranger = await store.runs.renewLease({ runId: run.id, workerId: 'w2', now: at(160), leaseExpiresAt: at(900) });
      expect(stranger?.lease).toEqual({ workerId: 'w1', expiresAt: at(300) });
      await store.runs.transition({
        runId: run.id,
        expect: { state: 'CLAIMED' },
        patch: { state: 'CANCELLED', lease: null },
        now: at(170),
      });
      const afterCancel = await store.runs.renewLease({ runId: run.id, workerId: 'w1', now: at(180), leaseExpiresAt: at(400) });
      expect(afterCancel).toMatchObject({ state: 'CANCELLED', lease: null });
      expect(await store.runs.renewLease({ runId: 'nope', workerId: 'w1', now: at(1), leaseExpiresAt: at(2) })).toBeUndefined();
    });

    it('lists runs in leased states whose lease has expired', async () => {
      const store = current();
      const expired = makeRun({ state: 'INPROGRESS', lease: { workerId: 'w', expiresAt: at(50) } });
      const blocked = makeRun({ state: 'BLOCKED', lease: { workerId: 'w', expiresAt: at(60) } });
      const alive = makeRun({ state: 'INPROGRESS', lease: { workerId: 'w', expiresAt: at(500) } });
      const done = makeRun({ state: 'SUCCEEDED', lease: null });
      for (const run of [expired, blocked, alive, done]) await store.runs.create({ run, attachments: [] });
      expect((await store.runs.listExpiredLeases(at(100), 10)).map((r) => r.id)).toEqual([expired.id, blocked.id]);
      expect(await store.runs.listExpiredLeases(at(100), 1)).toHaveLength(1);
    });
  });

  describe('runs.list', () => {
    const states: RunState[] = [...RUN_STATES];
    const arbRun = fc.record({
      team: fc.constantFrom('team-1', 'team-1', 'team-2'),
      state: fc.constantFrom(...states),
      created: fc.integer({ min: 0, max: 40 }),
      updatedDelta: fc.integer({ min: 0, max: 40 }),
      name: fc.constantFrom('alpha', 'beta', undefined),
      model: fc.constantFrom('m1', 'm2', undefined),
      creator: fc.constantFrom('user-1', 'user-2'),
      source: fc.constantFrom('API', 'CLI', 'WEBHOOK'),
      env: fc.constantFrom('env-1', undefined),
      // Text orders compare by code point: U+FF21 sorts before U+1F600 there, after it in UTF-16.
      skill: fc.constantFrom('o/r:deploy', 'a/b:x', '\u{1F600}/s', '\uFF21/s', undefined),
      title: fc.constantFrom('Fix Bug', 'deploy app', 'Refactor', 'Émile', '\u{1F600} smile', '\uFF21 wide', 'fix bug'),
      prompt: fc.constantFrom('please fix the BUG', 'ship it', '100% done_ok'),
      factory: fc.constantFrom('f1', null),
      automation: fc.constantFrom('a1', 'a2', null),
      ancestors: fc.constantFrom([], ['p1'], ['p2', 'p1'], ['p3']),
      session: fc.constantFrom('s1', 's2', null),
      conversation: fc.constantFrom('c1', 'c2'),
    });
    const toRecord = (
      r: fc.Arbitrary<unknown> extends never ? never : typeof arbRun extends fc.Arbitrary<infer T> ? T : never,
    ): RunRecord =>
      makeRun({
        teamUid: r.team,
        state: r.state,
        createdAt: at(r.created * 1000),
        updatedAt: at((r.created + r.updatedDelta) * 1000),
        title: r.title,
        prompt: r.prompt,
        creator: { type: 'user', uid: r.creator },
        source: r.source as RunRecord['source'],
        config: {
          ...(r.name !== undefined ? { name: r.name } : {}),
          ...(r.model !== undefined ? { model_id: r.model } : {}),
          ...(r.env !== undefined ? { environment_id: r.env } : {}),
          ...(r.skill !== undefined ? { skill_spec: r.skill } : {}),
        },
        factoryUid: r.factory,
        parentRunId: r.ancestors[0] ?? null,
        ancestorRunIds: [...r.ancestors],
        sessionId: r.session,
        conversationId: r.conversation,
        trigger: r.automation === null ? null : { factory_uid: 'f1', automation_id: r.automation, webhook_uid: 'w', delivery_id: 'd' },
      });
    const arbFilter: fc.Arbitrary<RunFilter> = fc.record(
      {
        states: fc.subarray(states, { minLength: 1, maxLength: 3 }),
        name: fc.constantFrom('alpha', 'beta', 'gamma'),
        modelId: fc.constantFrom('m1', 'm2'),
        creatorUid: fc.constantFrom('user-1', 'user-2'),
        source: fc.constantFrom(...RUN_SOURCES.slice(0, 3)),
        createdAfter: fc.integer({ min: 0, max: 40 }).map((s) => at(s * 1000)),
        createdBefore: fc.integer({ min: 0, max: 40 }).map((s) => at(s * 1000)),
        updatedAfter: fc.integer({ min: 0, max: 80 }).map((s) => at(s * 1000)),
        environmentId: fc.constantFrom('env-1', 'env-2'),
        skillSpec: fc.constantFrom('o/r:deploy'),
        q: fc.constantFrom('bug', 'DEPLOY', '%', '_', 'fix the', 'o/r'),
        factoryUid: fc.constantFrom('f1', 'f2'),
        automationId: fc.constantFrom('a1', 'a2'),
        ancestorRunId: fc.constantFrom('p1', 'p2', 'p9'),
        sessionId: fc.constantFrom('s1', 's2'),
        conversationId: fc.constantFrom('c1', 'c2', 'c9'),
        withFactory: fc.constant(true as const),
      },
      { requiredKeys: [] },
    );

    it(
      'agrees with the reference semantics for any filter, order, position and page size',
      async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.array(arbRun, { minLength: 0, maxLength: 25 }),
            arbFilter,
            fc.constantFrom(...RUN_SORT_KEYS),
            fc.constantFrom('asc', 'desc'),
            fc.integer({ min: 1, max: 30 }),
            fc.option(fc.integer({ min: 0, max: 80 })),
            fc.option(fc.integer({ min: 0, max: 80 })),
            async (raw, filter, sortBy, order, limit, afterAt, asOfAt) => {
              const s = await options.create();
              try {
                const runs = raw.map(toRecord);
                // At once: each run names its own times and id, so the order they are stored in is no input.
                await Promise.all(runs.map((run) => s.runs.create({ run, attachments: [] })));
                const pivot = runs[0];
                const query: RunListQuery = { teamUid: 'team-1', filter, sortBy, order, limit };
                if (afterAt !== null && pivot) {
                  // Timestamp orders: any instant; text orders: some run's value (or no skill).
                  const other = runs[afterAt % runs.length] as RunRecord;
                  const value =
                    sortBy === 'updated_at' || sortBy === 'created_at'
                      ? at(afterAt * 1000)
                      : afterAt % 5 === 0
                        ? null
                        : sortValue(other, sortBy);
                  query.after = { value: sortBy === 'title' ? (value ?? 'M') : value, id: pivot.id };
                }
                if (asOfAt !== null) query.asOf = at(asOfAt * 1000);
                const expected = runs
                  .filter(
                    (r) =>
                      r.teamUid === 'team-1' &&
                      (query.asOf === undefined || sortBy !== 'updated_at' || r.updatedAt <= query.asOf) &&
                      isAfterPosition(r, query) &&
                      matchesRunFilter(r, filter),
                  )
                  .sort(compareRuns(sortBy, order))
                  .slice(0, limit)
                  .map((r) => r.id);
                const got = (await s.runs.list(query)).map((r) => r.id);
                expect(got).toEqual(expected);
              } finally {
                await (options.destroy ? options.destroy(s) : s.close?.());
              }
            },
          ),
          { numRuns: options.listCases ?? 25 },
        );
      },
      LIST_CASE_MS * (options.listCases ?? 25),
    );

    it('walking pages by keyset visits every run once, in order', async () => {
      const store = current();
      const runs = Array.from({ length: 23 }, (_, i) =>
        makeRun({
          createdAt: at(Math.floor(i / 3) * 1000),
          updatedAt: at(Math.floor(i / 4) * 1000),
          // Ties on title and skill, and runs without a skill (last in either order for `agent`).
          title: ['b', 'a', '\u{1F600}', '\uFF21'][i % 4] as string,
          config: i % 3 === 0 ? {} : { skill_spec: ['s/x:1', 's/a:2'][i % 2] as string },
        }),
      );
      for (const run of runs) await store.runs.create({ run, attachments: [] });
      for (const sortBy of RUN_SORT_KEYS) {
        for (const order of ['asc', 'desc'] as const) {
          const seen: RunRecord[] = [];
          let after: RunListQuery['after'];
          for (let page = 0; page < 10; page++) {
            const rows = await store.runs.list({ teamUid: 'team-1', filter: {}, sortBy, order, limit: 5, ...(after ? { after } : {}) });
            seen.push(...rows);
            const last = rows.at(-1);
            if (!last || rows.length < 5) break;
            after = { value: sortValue(last, sortBy), id: last.id };
          }
          expect(seen.map((r) => r.id)).toEqual([...runs].sort(compareRuns(sortBy, order)).map((r) => r.id));
        }
      }
    });

    describeListWalkConformance(current, options);

    it('treats LIKE wildcards in q literally', async () => {
      const store = current();
      const plain = makeRun({ title: 'abc', prompt: 'nothing' });
      const literal = makeRun({ title: '50% off_now', prompt: 'x' });
      for (const run of [plain, literal]) await store.runs.create({ run, attachments: [] });
      const list = async (q: string) =>
        (await store.runs.list({ teamUid: 'team-1', filter: { q }, sortBy: 'created_at', order: 'asc', limit: 10 })).map((r) => r.id);
      expect(await list('%')).toEqual([literal.id]);
      expect(await list('_')).toEqual([literal.id]);
      expect(await list('ABC')).toEqual([plain.id]);
    });
  });
}
