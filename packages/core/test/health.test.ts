import { createMemoryStore } from '@agentrun/store-memory';
import { describe, expect, it } from 'vitest';
import { createAgentRun } from '../src/app/create-agent-run.js';
import { demoExecutor } from '../src/executor/demo-executor.js';

// GET /healthz and GET /readyz (docs/operations.md, "Health"), on the memory store; the outage
// case is on PostgreSQL (packages/store-postgres/test/readiness.test.ts).
const get = async (fetch: (r: Request) => Promise<Response>, path: string) => {
  const res = await fetch(new Request(`http://agentrun.test${path}`));
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
};

describe('health probes', () => {
  it('answers both without an API key, at the mount point, uncached, and owns only those two paths', async () => {
    const agentrun = createAgentRun({ store: createMemoryStore() });
    const live = await get(agentrun.fetch, '/healthz');
    expect(live).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(live.headers.get('cache-control')).toBe('no-store');
    const ready = await get(agentrun.fetch, '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: 'ready',
      checks: [
        { name: 'store', ok: true, detail: 'reachable' },
        { name: 'migrations', ok: true, detail: 'current' },
      ],
      parts: [],
    });
    expect([agentrun.owns('/healthz'), agentrun.owns('/readyz'), agentrun.owns('/healthz/x'), agentrun.owns('/health')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    // The parts: only `health` answers them.
    expect([agentrun.health.owns('/readyz'), agentrun.api.owns('/readyz'), agentrun.health.owns('/api/v1/agent/runs')]).toEqual([
      true,
      false,
      false,
    ]);
    expect((await get(agentrun.api.fetch, '/healthz')).status).toBe(404);
    expect((await get(agentrun.health.fetch, '/healthz')).status).toBe(200);
  });

  it('names pending migrations and an unreachable store in a 503 problem', async () => {
    const store = createMemoryStore();
    const pending = createAgentRun({ store: { ...store, checkReady: async () => ({ pendingMigrations: ['0010_x', '0011_y'] }) } });
    const notReady = await get(pending.fetch, '/readyz');
    expect(notReady.status).toBe(503);
    expect(notReady.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(notReady.body).toMatchObject({
      error: 'unavailable',
      errors: [{ path: 'migrations', detail: '2 pending (0010_x, 0011_y); run migrate()' }],
    });

    const secretText = 'password=hunter2 host=db.internal';
    const down = createAgentRun({
      store: { ...store, checkReady: async () => Promise.reject(new Error(secretText)), isUnavailable: () => true },
      onError: () => {},
    });
    const downAnswer = await get(down.fetch, '/readyz');
    expect(downAnswer.status).toBe(503);
    expect(downAnswer.body.errors).toEqual([{ path: 'store', detail: 'the database cannot be reached' }]);
    // The unauthenticated answer never carries the store's own error text.
    expect(JSON.stringify(downAnswer.body)).not.toContain('hunter2');
    // Liveness reads nothing.
    expect((await get(down.fetch, '/healthz')).status).toBe(200);
  });

  it('is ready with a worker only while it runs, and unready once close() began', async () => {
    const agentrun = createAgentRun({ store: createMemoryStore(), executor: demoExecutor() });
    const worker = agentrun.worker({ pollIntervalMs: 10_000 });
    const made = await get(agentrun.fetch, '/readyz');
    expect(made.status).toBe(503);
    expect(made.body.errors).toEqual([{ path: 'workers', detail: 'none of 1 running' }]);
    worker.start();
    const running = await get(agentrun.fetch, '/readyz');
    expect(running.status).toBe(200);
    expect(running.body.checks).toContainEqual({ name: 'workers', ok: true, detail: '1 of 1 running' });
    await agentrun.close();
    const closing = await get(agentrun.fetch, '/readyz');
    expect(closing.status).toBe(503);
    expect((closing.body.errors as { path: string }[]).map((e) => e.path)).toEqual(['workers', 'shutdown']);
  });
});
