import { testPrincipal } from '@agentrun/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { Executor, RunState, Worker } from '../src/index.js';
import { WORKER_PRESENCE } from '../src/worker/worker-hosts.js';
import { type Harness, setup } from './helpers.js';

// Worker hosts (docs/operations.md, "Worker hosts"): runs routed by config.worker_host, the workers'
// presence, GET /api/v1/workers, and the status of a run whose host has no live worker.

/** An executor that holds every run until the test lets it go, noting which worker host ran it. */
function heldExecutor(host: string, ran: Map<string, string[]>) {
  const release: (() => void)[] = [];
  const executor: Executor = {
    execute: (input, ctx) =>
      new Promise((resolve, reject) => {
        ran.set(input.run.run_id, [...(ran.get(input.run.run_id) ?? []), host]);
        release.push(() => resolve({ status: 'succeeded', message: 'done' }));
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
      }),
  };
  return {
    executor,
    releaseAll: () => {
      for (const f of release.splice(0)) f();
    },
  };
}

const until = async (check: () => boolean | Promise<boolean>, what: string) => {
  const deadline = Date.now() + 5000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('worker hosts', () => {
  let h: Harness;
  let workers: Worker[] = [];
  afterEach(async () => {
    for (const w of workers) await w.stop();
    workers = [];
  });
  const start = (host: string, executor: Executor, more: { unrouted?: boolean } = {}) => {
    const worker = h.handler.app.worker({ executor, host, pollIntervalMs: 10, presenceMs: 20, schedules: false, ...more });
    workers.push(worker);
    worker.start();
    return worker;
  };
  const create = async (config?: Record<string, unknown>) =>
    (await h.json<{ run_id: string }>('POST', '/agent/runs', { body: { prompt: 'p', ...(config ? { config } : {}) } })).body.run_id;
  const run = async (id: string) =>
    (await h.json<{ state: RunState; status_message?: { message: string } }>('GET', `/agent/runs/${id}`)).body;

  it("runs go to their host's workers, unrouted ones to any that takes them; the list shows each worker's runs", async () => {
    h = await setup();
    const ran = new Map<string, string[]>();
    const a = heldExecutor('a', ran);
    const b = heldExecutor('b', ran);
    start('a', a.executor);
    start('b', b.executor, { unrouted: false });
    const forA = await Promise.all([create({ worker_host: 'a' }), create({ worker_host: 'a' })]);
    const forB = await create({ worker_host: 'b' });
    const anyHost = await create();
    await until(() => ran.size === 4, 'four executions');
    for (const id of forA) expect(ran.get(id)).toEqual(['a']);
    expect(ran.get(forB)).toEqual(['b']);
    // b takes no unrouted run.
    expect(ran.get(anyHost)).toEqual(['a']);
    // The presence records tell the runs held once the next heartbeat is written.
    await until(async () => (await h.store.workers.list({ seenSince: '' })).some((w) => w.runs.length > 0), 'a heartbeat');
    const listed = await h.json<{ workers: { host: string; unrouted: boolean; runs: string[]; runs_held: number; capacity: number }[] }>(
      'GET',
      '/workers',
    );
    expect(listed.status).toBe(200);
    expect(listed.body.workers.map((w) => [w.host, w.unrouted, w.capacity])).toEqual([
      ['a', true, 4],
      ['b', false, 4],
    ]);
    a.releaseAll();
    b.releaseAll();
    for (const id of [...forA, forB, anyHost]) await until(async () => (await run(id)).state === 'SUCCEEDED', `${id} to succeed`);
  });

  it('shows another team only how many runs a worker holds, never their ids', async () => {
    h = await setup();
    const ran = new Map<string, string[]>();
    const a = heldExecutor('a', ran);
    const worker = start('a', a.executor);
    const id = await create();
    await until(() => ran.size === 1, 'the execution');
    await until(async () => (await h.store.workers.list({ seenSince: '' }))[0]?.runs.length === 1, 'a heartbeat with the run');
    const own = await h.json<{ workers: { id: string; runs: string[]; runs_held: number }[] }>('GET', '/workers');
    expect(own.body.workers).toMatchObject([{ id: worker.id, runs: [id], runs_held: 1 }]);
    const other = await h.keyFor(testPrincipal({ uid: 'u2', team_uid: 'team-2' }));
    const theirs = await h.json<{ workers: { runs: string[]; runs_held: number }[] }>('GET', '/workers', { key: other });
    expect(theirs.body.workers).toMatchObject([{ runs: [], runs_held: 1 }]);
    a.releaseAll();
  });

  it('a run for a host with no live worker waits QUEUED saying so, until a worker of the host takes it', async () => {
    h = await setup();
    const id = await create({ worker_host: 'gpu-1' });
    expect(await run(id)).toMatchObject({
      state: 'QUEUED',
      status_message: { message: "waiting for a worker on host 'gpu-1': none is live" },
    });
    // A worker of another host leaves it.
    const ran = new Map<string, string[]>();
    const other = heldExecutor('b', ran);
    start('b', other.executor);
    await h.handler.app.maintenance.runAll();
    expect((await run(id)).status_message?.message).toBe("waiting for a worker on host 'gpu-1': none is live");
    // A live record of the host (a worker busy elsewhere): the wait's status is cleared.
    const seen = new Date(h.clock.now()).toISOString();
    await h.store.workers.heartbeat({
      id: 'gpu-worker',
      host: 'gpu-1',
      unrouted: false,
      capacity: 1,
      runs: [],
      executor: 'x',
      version: 'x',
      startedAt: seen,
      lastSeenAt: seen,
    });
    await h.handler.app.maintenance.runAll();
    expect(await run(id)).toMatchObject({ state: 'QUEUED' });
    expect((await run(id)).status_message).toBeUndefined();
    // Gone past the liveness window: waiting again, and its record swept.
    h.clock.advance(WORKER_PRESENCE.liveForMs + 1);
    await h.handler.app.maintenance.runAll();
    expect((await run(id)).status_message?.message).toBe("waiting for a worker on host 'gpu-1': none is live");
    expect((await h.store.workers.list({ seenSince: '' })).map((w) => w.id)).not.toContain('gpu-worker');
    // A worker of the host claims it; the claim's status replaces the wait's.
    const gpu = heldExecutor('gpu-1', ran);
    start('gpu-1', gpu.executor);
    await until(() => ran.has(id), 'the gpu worker to take it');
    expect(ran.get(id)).toEqual(['gpu-1']);
    expect((await run(id)).status_message?.message).not.toContain('waiting for a worker');
    gpu.releaseAll();
    other.releaseAll();
  });

  it('a run created while a worker of its host is live has no wait status; a stopped worker removes its record', async () => {
    h = await setup();
    const ran = new Map<string, string[]>();
    const a = heldExecutor('a', ran);
    const worker = start('a', a.executor, { unrouted: false });
    await until(async () => (await h.store.workers.list({ seenSince: '' })).length === 1, 'the first heartbeat');
    await worker.stop();
    expect(await h.store.workers.list({ seenSince: '' })).toEqual([]);
    const again = start('a', a.executor, { unrouted: false });
    await until(async () => (await h.store.workers.list({ seenSince: '' })).length === 1, 'the first heartbeat');
    const id = await create({ worker_host: 'a' });
    await until(() => ran.has(id), 'the run to start');
    a.releaseAll();
    await until(async () => (await run(id)).state === 'SUCCEEDED', 'the run to succeed');
    expect((await run(id)).status_message?.message).toBe('done');
    expect(again.id).not.toBe(worker.id);
  });
});
