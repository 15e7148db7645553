import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createAgentRun,
  createMaintenance,
  defaultMaintenanceTasks,
  demoExecutor,
  type MaintenanceTask,
  recordAuditEvent,
  type Worker,
} from '../src/index.js';

const T0 = Date.UTC(2026, 0, 10);

const counting = (name: string, everyMs: number, fail?: () => unknown) => {
  const runs: number[] = [];
  const task: MaintenanceTask = {
    name,
    everyMs,
    run: async (now) => {
      runs.push(now);
      const error = fail?.();
      if (error) throw error;
      return 1;
    },
  };
  return { task, runs };
};

describe('maintenance', () => {
  it('runs each task when its period has passed, and not before', async () => {
    let now = 1_000;
    const a = counting('a', 100);
    const b = counting('b', 1_000);
    const m = createMaintenance({
      store: createMemoryStore(),
      clock: { now: () => now },
      onError: (e) => expect.fail(String(e)),
      tasks: [a.task, b.task],
    });
    await m.runDue();
    now += 50;
    await m.runDue();
    now += 50;
    await m.runDue();
    expect(a.runs).toEqual([1_000, 1_100]);
    expect(b.runs).toEqual([1_000]);
  });

  it('reports a failure to onError and tries the task again at the next call', async () => {
    let failing = true;
    const errors: unknown[] = [];
    const t = counting('t', 60_000, () => (failing ? new Error('store down') : undefined));
    const m = createMaintenance({ store: createMemoryStore(), clock: { now: () => 5 }, onError: (e) => errors.push(e), tasks: [t.task] });
    await m.runDue();
    expect(errors).toEqual([new Error('store down')]);
    failing = false;
    await m.runDue();
    expect(t.runs).toHaveLength(2);
    await m.runDue();
    expect(t.runs).toHaveLength(2);
  });

  it('runAll runs every task now and says what each removed', async () => {
    const m = createMaintenance({
      store: createMemoryStore(),
      onError: () => {},
      tasks: [counting('x', 1e9).task, counting('y', 1e9).task],
    });
    expect(await m.runAll()).toEqual({ x: 1, y: 1 });
  });

  it('by default purges expired idempotency keys, sweeps the delivery log, the audit log and the callbacks’ log, and folds the stats', () => {
    expect(defaultMaintenanceTasks(createMemoryStore()).map((t) => t.name)).toEqual([
      'idempotency-purge',
      'delivery-log-sweep',
      'audit-sweep',
      'callback-log-sweep',
      'stats-rollups',
    ]);
  });

  it('sweeps audit events past the retention given, and keeps younger ones', async () => {
    const store = createMemoryStore();
    const p = testPrincipal();
    const DAY = 24 * 60 * 60 * 1000;
    await recordAuditEvent(store, p, 'secret.written', { type: 'secret', id: 'old' }, {}, T0 - 3 * DAY);
    await recordAuditEvent(store, p, 'secret.written', { type: 'secret', id: 'young' }, {}, T0 - DAY);
    const m = createMaintenance({ store, clock: { now: () => T0 }, onError: () => {}, auditRetentionMs: 2 * DAY });
    expect((await m.runAll())['audit-sweep']).toBe(1);
    expect((await store.audit.list(p.team_uid, { limit: 10 })).map((e) => e.targetId)).toEqual(['young']);
  });

  describe('on the worker', () => {
    let worker: Worker | undefined;
    afterEach(async () => {
      await worker?.stop();
      worker = undefined;
    });

    it("runs on an agentrun worker's timer, and a failing task reaches createAgentRun's onError", async () => {
      const t = counting('often', 1, () => new Error('cannot sweep'));
      const errors: unknown[] = [];
      const app = createAgentRun({
        store: createMemoryStore(),
        executor: demoExecutor(),
        maintenanceTasks: [t.task],
        onError: (e) => errors.push(e),
      });
      worker = app.worker({ pollIntervalMs: 5 });
      worker.start();
      await vi.waitFor(() => expect(t.runs.length).toBeGreaterThanOrEqual(2));
      expect(errors.length).toBeGreaterThanOrEqual(1);
      expect(errors[0]).toEqual(new Error('cannot sweep'));
    });

    it('requests alone run no maintenance', async () => {
      const t = counting('never', 1);
      const app = createAgentRun({ store: createMemoryStore(), maintenanceTasks: [t.task] });
      for (let i = 0; i < 5; i++) await app.fetch(new Request('http://x/webhooks/w/nope', { method: 'POST', body: '{}' }));
      expect(t.runs).toEqual([]);
    });
  });
});
