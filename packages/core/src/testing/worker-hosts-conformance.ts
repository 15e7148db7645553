import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../run/record.js';
import type { Store } from '../store/store.js';
import type { WorkerRecord } from '../store/workers.js';
import { isoTime } from '../util/clock.js';
import { runWorkerHost, takesRun } from '../worker/worker-hosts.js';
import { makeRun } from './fixtures.js';
import type { StoreConformanceOptions } from './store-conformance.js';

const T0 = Date.UTC(2026, 0, 1);
const at = (ms: number) => isoTime(T0 + ms);
const routed = (host: string | undefined, ms: number): RunRecord =>
  makeRun({ createdAt: at(ms), updatedAt: at(ms), config: host === undefined ? { name: 'n' } : { name: 'n', worker_host: host } });
const worker = (id: string, host: string, lastSeenAt: string, more: Partial<WorkerRecord> = {}): WorkerRecord => ({
  id,
  host,
  unrouted: true,
  capacity: 4,
  runs: [],
  executor: 'demo',
  version: '0.1.0',
  startedAt: at(0),
  lastSeenAt,
  ...more,
});

/**
 * Worker hosts (docs/operations.md, "Worker hosts"): the claim's routing by `config.worker_host`
 * (`ClaimRunInput.host`, `unrouted`), with a property over random runs, hosts and workers, and the
 * workers part (`store.workers`).
 */
export function describeWorkerHostsConformance(current: () => Store, options: StoreConformanceOptions): void {
  describe('claim routing (config.worker_host)', () => {
    const claim = (store: Store, host: string | undefined, unrouted?: boolean) =>
      store.runs.claimNext({
        workerId: `w-${host}`,
        now: at(100),
        leaseExpiresAt: at(30_100),
        ...(host !== undefined ? { host } : {}),
        ...(unrouted !== undefined ? { unrouted } : {}),
      });

    it("a worker takes its host's runs and unrouted ones, oldest first, never another host's", async () => {
      const store = current();
      const forB = routed('b', 1);
      const forA = routed('a', 2);
      const anyHost = routed(undefined, 3);
      const empty = routed('', 4);
      for (const run of [forB, forA, anyHost, empty]) await store.runs.create({ run, attachments: [] });
      expect((await claim(store, 'a'))?.id).toBe(forA.id);
      expect((await claim(store, 'a'))?.id).toBe(anyHost.id);
      // An empty worker_host names no host.
      expect((await claim(store, 'a'))?.id).toBe(empty.id);
      expect(await claim(store, 'a')).toBeUndefined();
      expect(await store.runs.get(forB.id)).toMatchObject({ state: 'QUEUED', lease: null });
      expect((await claim(store, 'b'))?.id).toBe(forB.id);
    });

    it('with unrouted false a worker takes only its host’s runs; without a host, only unrouted ones', async () => {
      const store = current();
      const anyHost = routed(undefined, 1);
      const forA = routed('a', 2);
      for (const run of [anyHost, forA]) await store.runs.create({ run, attachments: [] });
      expect(await claim(store, 'b', false)).toBeUndefined();
      expect((await claim(store, 'a', false))?.id).toBe(forA.id);
      expect(await claim(store, 'a', false)).toBeUndefined();
      expect(await claim(store, undefined, false)).toBeUndefined();
      expect((await claim(store, undefined))?.id).toBe(anyHost.id);
    });

    it('lists the queued runs that name a host, by host then oldest first, up to the limit', async () => {
      const store = current();
      const b1 = routed('b', 1);
      const a2 = routed('a', 2);
      const a3 = routed('a', 3);
      const none = routed(undefined, 0);
      const empty = routed('', 0);
      const running = { ...routed('a', 0), state: 'INPROGRESS' as const };
      for (const run of [b1, a2, a3, none, empty, running]) await store.runs.create({ run, attachments: [] });
      expect((await store.runs.listRouted(10)).map((r) => r.id)).toEqual([a2.id, a3.id, b1.id]);
      expect((await store.runs.listRouted(2)).map((r) => r.id)).toEqual([a2.id, a3.id]);
      expect(await store.runs.listRouted(10)).toContainEqual(b1);
    });

    it('any runs, hosts and workers: each run is claimed once, by a worker that takes it, and every run some worker takes is claimed', async () => {
      const host = fc.constantFrom('a', 'b', 'c');
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.option(fc.constantFrom('a', 'b', 'c', ''), { nil: undefined }), { maxLength: 20 }),
          fc.array(fc.record({ host, unrouted: fc.boolean() }), { minLength: 1, maxLength: 4 }),
          async (runHosts, workers) => {
            const s = await options.create();
            try {
              const runs = runHosts.map((h, i) => routed(h, i));
              await Promise.all(runs.map((run) => s.runs.create({ run, attachments: [] })));
              const claims = new Map<string, number[]>();
              // Every worker claims at once until it finds nothing.
              await Promise.all(
                workers.map(async (w, i) => {
                  for (;;) {
                    const got = await s.runs.claimNext({
                      workerId: `w${i}`,
                      host: w.host,
                      unrouted: w.unrouted,
                      now: at(100),
                      leaseExpiresAt: at(30_100),
                    });
                    if (!got) return;
                    claims.set(got.id, [...(claims.get(got.id) ?? []), i]);
                  }
                }),
              );
              for (const run of runs) {
                const by = claims.get(run.id) ?? [];
                const takers = workers.filter((w) => takesRun(w, runWorkerHost(run.config)));
                expect(by.length).toBe(takers.length > 0 ? 1 : 0);
                for (const i of by) expect(takesRun(workers[i] as (typeof workers)[number], runWorkerHost(run.config))).toBe(true);
              }
            } finally {
              await (options.destroy ? options.destroy(s) : s.close?.());
            }
          },
        ),
        { numRuns: 15 },
      );
    }, 30_000);
  });

  describe('workers', () => {
    it('lists the live ones by host then id, replaces a record by id, removes and sweeps', async () => {
      const store = current();
      await store.workers.heartbeat(worker('w2', 'b', at(100)));
      await store.workers.heartbeat(worker('w3', 'a', at(100), { runs: [{ id: 'r1', teamUid: 't1' }], unrouted: false, capacity: 2 }));
      await store.workers.heartbeat(worker('w1', 'b', at(100)));
      await store.workers.heartbeat(worker('old', 'a', at(10)));
      expect((await store.workers.list({ seenSince: at(50) })).map((w) => w.id)).toEqual(['w3', 'w1', 'w2']);
      expect((await store.workers.list({ seenSince: at(50) }))[0]).toEqual(
        worker('w3', 'a', at(100), { runs: [{ id: 'r1', teamUid: 't1' }], unrouted: false, capacity: 2 }),
      );
      // A heartbeat replaces the whole record.
      await store.workers.heartbeat(worker('w3', 'a', at(200), { runs: [] }));
      expect((await store.workers.list({ seenSince: at(150) })).map((w) => [w.id, w.runs, w.lastSeenAt])).toEqual([['w3', [], at(200)]]);
      await store.workers.remove('w3');
      await store.workers.remove('nobody');
      expect((await store.workers.list({ seenSince: at(0) })).map((w) => w.id)).toEqual(['old', 'w1', 'w2']);
      expect(await store.workers.sweep({ seenBefore: at(50) })).toBe(1);
      expect((await store.workers.list({ seenSince: at(0) })).map((w) => w.id)).toEqual(['w1', 'w2']);
    });

    it('answers copies', async () => {
      const store = current();
      const record = worker('w1', 'a', at(100), { runs: [{ id: 'r1', teamUid: 't1' }] });
      await store.workers.heartbeat(record);
      record.runs.push({ id: 'r2', teamUid: 't1' });
      const [listed] = await store.workers.list({ seenSince: at(0) });
      listed?.runs.push({ id: 'r3', teamUid: 't1' });
      expect((await store.workers.list({ seenSince: at(0) }))[0]?.runs).toEqual([{ id: 'r1', teamUid: 't1' }]);
    });
  });
}
