import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../run/record.js';
import type { IdempotencyWrite } from '../store/idempotency.js';
import type { Store } from '../store/store.js';
import { isoTime } from '../util/clock.js';
import { makeRun } from './fixtures.js';

const T0 = Date.UTC(2026, 0, 1);
const at = (ms: number) => isoTime(T0 + ms);

const idem = (key: string, overrides: Partial<IdempotencyWrite<RunRecord>> = {}): IdempotencyWrite<RunRecord> => ({
  scope: 'team-1/user-1',
  key,
  fingerprint: 'fp-1',
  now: at(0),
  expiresAt: at(86_400_000),
  respond: (r) => ({ status: 200, body: { run_id: r.id, state: r.state } }),
  ...overrides,
});

/**
 * The idempotency part of the store conformance suite (see `describeStoreConformance`):
 * reservations of writes without a store transaction, and the keys a run write records in its own
 * (replays, scopes, expiry, a race of 20 on one key, a transition that does not apply).
 */
export function describeIdempotencyConformance(current: () => Store): void {
  describe('idempotent writes', () => {
    describe('reservations (writes without a store transaction)', () => {
      const hold = (key: string, o: { now?: string; expiresAt?: string; fingerprint?: string } = {}) =>
        current().idempotency.reserve({
          scope: 'team-1/user-1',
          key,
          fingerprint: o.fingerprint ?? 'fp-1',
          now: o.now ?? at(0),
          expiresAt: o.expiresAt ?? at(60),
        });

      it('one of 20 concurrent reservations of a key wins; the others see it held', async () => {
        const store = current();
        const outcomes = await Promise.all(Array.from({ length: 20 }, () => hold('r1')));
        expect(outcomes.filter((o) => o.reserved)).toHaveLength(1);
        for (const o of outcomes) if (!o.reserved) expect(o.existing).toMatchObject({ key: 'r1', status: 0, fingerprint: 'fp-1' });
        // Held, not completed: get() does not answer with it.
        expect(await store.idempotency.get('team-1/user-1', 'r1', at(1))).toBeUndefined();
      });

      it('complete records the response until its expiry; release drops only a held key', async () => {
        const store = current();
        expect(await hold('r2')).toEqual({ reserved: true });
        await store.idempotency.complete('team-1/user-1', 'r2', { status: 201, body: { uid: 'f1', n: [1, 'x'] }, expiresAt: at(1000) });
        expect(await store.idempotency.get('team-1/user-1', 'r2', at(500))).toMatchObject({
          status: 201,
          body: { uid: 'f1', n: [1, 'x'] },
        });
        await store.idempotency.release('team-1/user-1', 'r2');
        expect(await store.idempotency.get('team-1/user-1', 'r2', at(500))).toMatchObject({ status: 201 });
        const again = await hold('r2', { now: at(500), expiresAt: at(560) });
        expect(again).toMatchObject({ reserved: false, existing: { status: 201 } });

        expect(await hold('r3')).toEqual({ reserved: true });
        await store.idempotency.release('team-1/user-1', 'r3');
        expect(await hold('r3', { fingerprint: 'fp-2' })).toEqual({ reserved: true });
      });

      it('an expired hold (its holder died) is taken over', async () => {
        expect(await hold('r4', { expiresAt: at(60) })).toEqual({ reserved: true });
        expect(await hold('r4', { now: at(30), expiresAt: at(90) })).toMatchObject({ reserved: false });
        expect(await hold('r4', { now: at(60), expiresAt: at(120), fingerprint: 'fp-3' })).toEqual({ reserved: true });
      });
    });

    it('a repeated key replays the first response and writes nothing', async () => {
      const store = current();
      const first = makeRun();
      const a = await store.runs.create({ run: first, attachments: [], idempotency: idem('k1') });
      expect(a.result?.id).toBe(first.id);
      const second = makeRun();
      const b = await store.runs.create({ run: second, attachments: [], idempotency: idem('k1') });
      expect(b.result).toBeUndefined();
      expect(b.replayed).toMatchObject({ key: 'k1', fingerprint: 'fp-1', status: 200, body: { run_id: first.id, state: 'QUEUED' } });
      expect(await store.runs.get(second.id)).toBeUndefined();
      expect(await store.idempotency.get('team-1/user-1', 'k1', at(1))).toMatchObject({ body: { run_id: first.id } });
    });

    it('keys are per scope', async () => {
      const store = current();
      await store.runs.create({ run: makeRun(), attachments: [], idempotency: idem('k1') });
      const other = await store.runs.create({
        run: makeRun(),
        attachments: [],
        idempotency: idem('k1', { scope: 'team-1/user-2' }),
      });
      expect(other.result).toBeDefined();
    });

    it('an expired record counts as absent, and purgeExpired removes it', async () => {
      const store = current();
      await store.runs.create({ run: makeRun(), attachments: [], idempotency: idem('k1', { expiresAt: at(10) }) });
      expect(await store.idempotency.get('team-1/user-1', 'k1', at(10))).toBeUndefined();
      const later = await store.runs.create({
        run: makeRun(),
        attachments: [],
        idempotency: idem('k1', { now: at(10), expiresAt: at(20) }),
      });
      expect(later.result).toBeDefined();
      expect(await store.idempotency.purgeExpired(at(20))).toBe(1);
      expect(await store.idempotency.purgeExpired(at(20))).toBe(0);
    });

    it('20 concurrent creates with one key make exactly one run', async () => {
      const store = current();
      const candidates = Array.from({ length: 20 }, () => makeRun());
      const outcomes = await Promise.all(candidates.map((run) => store.runs.create({ run, attachments: [], idempotency: idem('race') })));
      const created = outcomes.filter((o) => o.result);
      expect(created).toHaveLength(1);
      const winner = created[0]?.result?.id;
      for (const o of outcomes.filter((o) => o.replayed)) expect(o.replayed?.body).toEqual({ run_id: winner, state: 'QUEUED' });
      const stored = await Promise.all(candidates.map((r) => store.runs.get(r.id)));
      expect(stored.filter(Boolean)).toHaveLength(1);
    });

    it('a transition carrying a used key is not applied', async () => {
      const store = current();
      const run = makeRun();
      await store.runs.create({ run, attachments: [] });
      const write = idem('cancel-1', { respond: (r) => ({ status: 200, body: r.id }) });
      const first = await store.runs.transition({
        runId: run.id,
        expect: { state: 'QUEUED' },
        patch: { state: 'CANCELLED' },
        now: at(1),
        idempotency: write,
      });
      expect(first.result?.applied).toBe(true);
      const again = await store.runs.transition({
        runId: run.id,
        expect: { state: 'CANCELLED' },
        patch: { state: 'QUEUED' },
        now: at(2),
        idempotency: write,
      });
      expect(again.replayed?.body).toBe(run.id);
      expect((await store.runs.get(run.id))?.state).toBe('CANCELLED');
    });

    it('a transition that does not apply records no response for its key', async () => {
      const store = current();
      const run = makeRun({ state: 'SUCCEEDED' });
      await store.runs.create({ run, attachments: [] });
      const write = idem('k-miss');
      const miss = await store.runs.transition({
        runId: run.id,
        expect: { state: 'QUEUED' },
        patch: { state: 'CANCELLED' },
        now: at(1),
        idempotency: write,
      });
      expect(miss.result?.applied).toBe(false);
      expect(await store.idempotency.get(write.scope, 'k-miss', at(2))).toBeUndefined();
    });
  });
}
