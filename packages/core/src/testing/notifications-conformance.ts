import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Notification, Notifications } from '../notify/notification.js';
import type { RunRecord } from '../run/record.js';
import type { TransitionRunInput } from '../store/runs.js';
import type { Store } from '../store/store.js';
import { isoTime } from '../util/clock.js';
import { newId } from '../util/ids.js';
import { makeRun } from './fixtures.js';
import { makeDelivery } from './ingress-conformance.js';

export interface NotificationsConformanceOptions {
  /** A fresh, empty store with `notifications`, for each test. */
  create: () => Store | Promise<Store>;
  /** Runs after each test with the store it used (defaults to `store.close()`). */
  destroy?: (store: Store) => void | Promise<void>;
  /**
   * Another instance over the same data, as another process would open it (its own connections),
   * or leave it out when the store cannot be shared (memory). Closed with `destroy`.
   */
  other?: (store: Store) => Store | Promise<Store>;
  /**
   * Write `run` (insert it, then change its state) in a transaction that then rolls back; for
   * stores with transactions. Nothing must be published for it.
   */
  rollback?: (store: Store, run: RunRecord) => Promise<void>;
}

const T0 = Date.UTC(2026, 0, 1);
const at = (ms: number) => isoTime(T0 + ms);

/** What a listener heard, and a way to wait for a notification without timing anything. */
interface Heard {
  readonly all: Notification[];
  /** Resolves once a notification matching `match` arrived (now or before). */
  until(match: (n: Notification) => boolean): Promise<void>;
  /** Notifications about these runs (no `resync`), in the order heard. */
  about(...runIds: string[]): Notification[];
  stop(): Promise<void>;
}

async function hear(notifications: Notifications): Promise<Heard> {
  const all: Notification[] = [];
  const waiting = new Set<{ match: (n: Notification) => boolean; resolve: () => void }>();
  const stop = await notifications.listen((n) => {
    all.push(n);
    for (const w of [...waiting])
      if (w.match(n)) {
        waiting.delete(w);
        w.resolve();
      }
  });
  return {
    all,
    until: (match) => (all.some(match) ? Promise.resolve() : new Promise<void>((resolve) => void waiting.add({ match, resolve }))),
    about: (...runIds) => all.filter((n) => 'runId' in n && runIds.includes(n.runId)),
    stop,
  };
}

const queued = (runId: string): Notification => ({ type: 'run.queued', runId });
const changed = (runId: string, state: RunRecord['state']): Notification => ({ type: 'run.changed', runId, state });
const followedUp = (runId: string, followupId: string): Notification => ({ type: 'run.followup', runId, followupId });
const isQueued = (runId: string) => (n: Notification) => n.type === 'run.queued' && n.runId === runId;

/**
 * The notifications every store with `notifications` must publish (docs/stores.md,
 * "Notifications"), as a vitest suite: which writes notify and with what, nothing for a write that
 * did not happen, listeners isolated from each other and from the store, and (with `other`) a
 * listener hearing the writes of another instance. Each test ends with a sentinel write: stores
 * deliver in commit order, so once its notification arrived every earlier one has too, and
 * "nothing else was published" needs no timed wait.
 *
 * ```ts
 * import { describeNotificationsConformance } from '@agentrun/core/testing';
 * describeNotificationsConformance('memory', { create: () => createMemoryStore() });
 * ```
 */
export function describeNotificationsConformance(name: string, options: NotificationsConformanceOptions): void {
  describe(`Notifications conformance: ${name}`, () => {
    let store: Store;
    let listening: Heard[] = [];
    const opened: Store[] = [];
    const open = async (make: () => Store | Promise<Store>) => {
      const s = await make();
      opened.push(s);
      return s;
    };
    const listen = async (s: Store = store) => {
      if (!s.notifications) throw new Error(`store "${name}" has no notifications`);
      const heard = await hear(s.notifications);
      listening.push(heard);
      return heard;
    };
    /** A run created as the sentinel: once its `run.queued` is heard, all earlier writes were. */
    const sentinel = async (heard: Heard, s: Store = store) => {
      const run = makeRun({ prompt: 'sentinel' });
      await s.runs.create({ run, attachments: [] });
      await heard.until(isQueued(run.id));
      return run.id;
    };
    const create = async (overrides: Partial<RunRecord> = {}) => {
      const run = makeRun(overrides);
      await store.runs.create({ run, attachments: [] });
      return run;
    };
    const transition = (input: Omit<TransitionRunInput, 'now'>) => store.runs.transition({ now: at(10), ...input });

    beforeEach(async () => {
      store = await open(options.create);
    });
    afterEach(async () => {
      for (const heard of listening) await heard.stop();
      listening = [];
    });
    afterAll(async () => {
      for (const s of opened) await (options.destroy ? options.destroy(s) : s.close?.());
    });

    it('has a notifications port', () => {
      expect(typeof store.notifications?.listen).toBe('function');
    });

    it('a created run is run.queued', async () => {
      const heard = await listen();
      const run = await create();
      const end = await sentinel(heard);
      expect(heard.about(run.id, end)).toEqual([queued(run.id), queued(end)]);
    });

    it('a replayed idempotent create publishes nothing', async () => {
      const idempotency = {
        scope: 'team-1/user-1',
        key: `k-${newId()}`,
        fingerprint: 'fp',
        now: at(0),
        expiresAt: at(86_400_000),
        respond: (r: RunRecord) => ({ status: 200, body: { run_id: r.id } }),
      };
      const first = makeRun();
      await store.runs.create({ run: first, attachments: [], idempotency });
      const heard = await listen();
      const second = makeRun();
      expect((await store.runs.create({ run: second, attachments: [], idempotency })).replayed).toBeDefined();
      const end = await sentinel(heard);
      expect(heard.about(first.id, second.id, end)).toEqual([queued(end)]);
    });

    it('a claim, a start and a cancel are each run.changed; heartbeats, progress and refused transitions publish nothing', async () => {
      const run = await create();
      const heard = await listen();
      const claimed = await store.runs.claimNext({ workerId: 'w1', now: at(1), leaseExpiresAt: at(30_000) });
      expect(claimed?.id).toBe(run.id);
      const lease = { workerId: 'w1', expiresAt: at(30_000) };
      await store.runs.renewLease({ runId: run.id, workerId: 'w1', now: at(2), leaseExpiresAt: at(40_000) });
      expect(
        (await transition({ runId: run.id, expect: { state: 'CLAIMED', workerId: 'w1' }, patch: { state: 'INPROGRESS', lease } })).result
          ?.applied,
      ).toBe(true);
      // Progress: a transition to the state the run is in.
      expect(
        (
          await transition({
            runId: run.id,
            expect: { state: 'INPROGRESS', workerId: 'w1' },
            patch: { statusMessage: { message: 'working' } },
          })
        ).result?.applied,
      ).toBe(true);
      // A compare-and-set that does not apply: wrong state, then wrong lease holder.
      expect((await transition({ runId: run.id, expect: { state: 'QUEUED' }, patch: { state: 'CANCELLED' } })).result?.applied).toBe(false);
      expect(
        (await transition({ runId: run.id, expect: { state: 'INPROGRESS', workerId: 'w2' }, patch: { state: 'SUCCEEDED' } })).result
          ?.applied,
      ).toBe(false);
      expect(
        (await transition({ runId: run.id, expect: { state: 'INPROGRESS' }, patch: { state: 'CANCELLED', lease: null } })).result?.applied,
      ).toBe(true);
      const end = await sentinel(heard);
      // The claim's state event is in its write, as is each state change's (transition's
      // `transcript`, not asked for here): its run.event comes first, as PostgreSQL's triggers'
      // notifications are sent at the end of the statement.
      expect(heard.about(run.id, end)).toEqual([
        { type: 'run.event', runId: run.id, eventId: 1 },
        changed(run.id, 'CLAIMED'),
        changed(run.id, 'INPROGRESS'),
        changed(run.id, 'CANCELLED'),
        queued(end),
      ]);
    });

    it('a follow-up to a running run is run.followup; to a finished run, run.changed to QUEUED, run.queued and run.followup', async () => {
      const running = await create({ state: 'INPROGRESS', lease: { workerId: 'w1', expiresAt: at(30_000) } });
      const finished = await create({ state: 'SUCCEEDED' });
      const heard = await listen();
      const f1 = { id: newId(), runId: running.id, message: 'also this', createdAt: at(3), creatorUid: 'user-1' };
      expect((await transition({ runId: running.id, expect: { state: 'INPROGRESS' }, patch: {}, followup: f1 })).result?.applied).toBe(
        true,
      );
      const f2 = { id: newId(), runId: finished.id, message: 'once more', createdAt: at(4), creatorUid: 'user-1' };
      expect(
        (await transition({ runId: finished.id, expect: { state: 'SUCCEEDED' }, patch: { state: 'QUEUED', attempts: 0 }, followup: f2 }))
          .result?.applied,
      ).toBe(true);
      // A follow-up carried by a transition that does not apply is not written, so not published.
      const f3 = { id: newId(), runId: finished.id, message: 'lost', createdAt: at(5), creatorUid: 'user-1' };
      expect((await transition({ runId: finished.id, expect: { state: 'SUCCEEDED' }, patch: {}, followup: f3 })).result?.applied).toBe(
        false,
      );
      const end = await sentinel(heard);
      expect(heard.about(running.id, finished.id, end)).toEqual([
        followedUp(running.id, f1.id),
        changed(finished.id, 'QUEUED'),
        queued(finished.id),
        followedUp(finished.id, f2.id),
        queued(end),
      ]);
    });

    it('lease recovery re-queueing a run is run.changed to QUEUED and run.queued; ending it, run.changed', async () => {
      const lease = { workerId: 'gone', expiresAt: at(1_000) };
      const requeued = await create({ state: 'INPROGRESS', lease, attempts: 1 });
      const ended = await create({ state: 'CLAIMED', lease, attempts: 3 });
      const heard = await listen();
      for (const [run, state] of [
        [requeued, 'QUEUED'],
        [ended, 'ERROR'],
      ] as const) {
        const out = await transition({
          runId: run.id,
          expect: { state: run.state, leaseExpiredBy: at(2_000) },
          patch: { state, lease: null },
        });
        expect(out.result?.applied).toBe(true);
      }
      const end = await sentinel(heard);
      expect(heard.about(requeued.id, ended.id, end)).toEqual([
        changed(requeued.id, 'QUEUED'),
        queued(requeued.id),
        changed(ended.id, 'ERROR'),
        queued(end),
      ]);
    });

    it('runs created by an accepted delivery are run.queued; a duplicate delivery publishes nothing', async () => {
      const heard = await listen();
      const [a, b, c] = [makeRun({ source: 'WEBHOOK' }), makeRun({ source: 'WEBHOOK' }), makeRun({ source: 'WEBHOOK' })];
      const identity = `h:${newId()}`;
      expect(
        await store.deliveries.accept({
          delivery: makeDelivery({ identity }),
          runs: [
            { run: a, attachments: [] },
            { run: b, attachments: [] },
          ],
        }),
      ).toEqual({ accepted: true });
      const again = await store.deliveries.accept({ delivery: makeDelivery({ identity }), runs: [{ run: c, attachments: [] }] });
      expect(again.accepted).toBe(false);
      const end = await sentinel(heard);
      expect(heard.about(a.id, b.id, c.id, end)).toEqual([queued(a.id), queued(b.id), queued(end)]);
    });

    it('an append of run events is one run.event with its last id; an append that adds nothing publishes nothing', async () => {
      const run = await create();
      const heard = await listen();
      await store.runEvents.append(run.id, [
        { at: at(1), type: 'output', data: { text: 'a' } },
        { at: at(2), type: 'output', data: { text: 'b' } },
      ]);
      await store.runEvents.append(run.id, []);
      await store.runEvents.append('no-such-run', [{ at: at(3), type: 'output', data: { text: 'c' } }]);
      await store.runEvents.append(run.id, [{ at: at(4), type: 'status', data: { message: 'd' } }]);
      const end = await sentinel(heard);
      expect(heard.about(run.id, 'no-such-run', end)).toEqual([
        { type: 'run.event', runId: run.id, eventId: 2 },
        { type: 'run.event', runId: run.id, eventId: 3 },
        queued(end),
      ]);
    });

    it('every listener hears each notification; one that throws stops neither the others nor the store', async () => {
      const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
      try {
        const thrower = vi.fn((_: Notification): void => {
          throw new Error('listener failed');
        });
        const stopThrower = await store.notifications?.listen(thrower);
        const first = await listen();
        const second = await listen();
        const run = await create();
        const end = await sentinel(first);
        await second.until(isQueued(end));
        expect(first.about(run.id, end)).toEqual([queued(run.id), queued(end)]);
        expect(second.about(run.id, end)).toEqual([queued(run.id), queued(end)]);
        expect(thrower.mock.calls.map(([n]) => n).filter((n) => n.type !== 'resync')).toEqual([queued(run.id), queued(end)]);
        expect(await store.runs.get(run.id)).toEqual(run);
        await stopThrower?.();
      } finally {
        quiet.mockRestore();
      }
    });

    it('a listener that stopped hears nothing more', async () => {
      const stopped = await listen();
      const still = await listen();
      const before = await sentinel(stopped);
      await stopped.stop();
      const run = await create();
      const end = await sentinel(still);
      expect(stopped.about(before, run.id, end)).toEqual([queued(before)]);
      expect(still.about(before, run.id, end)).toEqual([queued(before), queued(run.id), queued(end)]);
    });

    it.skipIf(!options.rollback)('a write that rolls back publishes nothing', async () => {
      const heard = await listen();
      const run = makeRun();
      await options.rollback?.(store, run);
      expect(await store.runs.get(run.id)).toBeUndefined();
      const end = await sentinel(heard);
      expect(heard.about(run.id, end)).toEqual([queued(end)]);
    });

    it.skipIf(!options.other)("a listener hears another instance's writes, and the other instance hears this one's", async () => {
      const other = await open(() => (options.other as NonNullable<typeof options.other>)(store));
      const here = await listen();
      const there = await listen(other);
      const run = makeRun();
      await other.runs.create({ run, attachments: [] });
      await here.until(isQueued(run.id));
      expect((await store.runs.claimNext({ workerId: 'w1', now: at(1), leaseExpiresAt: at(30_000) }))?.id).toBe(run.id);
      expect(
        (
          await other.runs.transition({
            runId: run.id,
            expect: { state: 'CLAIMED' },
            patch: { state: 'CANCELLED', lease: null },
            now: at(2),
          })
        ).result?.applied,
      ).toBe(true);
      const end = await sentinel(here, other);
      await there.until(isQueued(end));
      // The claim's run.event first: its state event is written by the claim (runs-conformance).
      const claimEvent: Notification = { type: 'run.event', runId: run.id, eventId: 1 };
      const expected = [queued(run.id), claimEvent, changed(run.id, 'CLAIMED'), changed(run.id, 'CANCELLED'), queued(end)];
      expect(here.about(run.id, end)).toEqual(expected);
      expect(there.about(run.id, end)).toEqual(expected);
    });
  });
}
