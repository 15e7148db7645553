import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type AgentRunHandler,
  createAgentRunHandler,
  type createWorker,
  demoExecutor,
  type ExecutionContext,
  type ExecutionInput,
  type ExecutionOutcome,
  type Executor,
  type FollowupRecord,
  type RunState,
  type Worker,
} from '../src/index.js';
import { MAX_BACKOFF_MS } from '../src/runner/backoff.js';

const principal = testPrincipal();

/** An executor the test steers: each execution waits until the test settles it. */
function steeredExecutor() {
  const calls: {
    input: ExecutionInput;
    ctx: ExecutionContext;
    settle: (o: ExecutionOutcome | Error) => void;
    followups: FollowupRecord[];
  }[] = [];
  const executor: Executor = {
    execute(input, ctx) {
      return new Promise((resolve, reject) => {
        const call = {
          input,
          ctx,
          followups: [] as FollowupRecord[],
          settle: (o: ExecutionOutcome | Error) => (o instanceof Error ? reject(o) : resolve(o)),
        };
        ctx.onFollowup((f) => call.followups.push(f));
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
        calls.push(call);
      });
    },
  };
  return { executor, calls };
}

const until = async (check: () => boolean | Promise<boolean>, what: string, timeoutMs = 3000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('worker', () => {
  let handler: AgentRunHandler;
  let workers: Worker[] = [];
  const start = (executor: Executor, options: Partial<Parameters<typeof createWorker>[0]> = {}) => {
    const worker = handler.app.worker({ executor, pollIntervalMs: 20, ...options });
    workers.push(worker);
    worker.start();
    return worker;
  };
  const create = async (prompt = 'do it') => (await handler.service.create(principal, { prompt })).body.run_id;
  const stateOf = async (runId: string) => (await handler.service.get(principal, runId)).state;
  const waitState = (runId: string, state: RunState) => until(async () => (await stateOf(runId)) === state, `state ${state}`);

  afterEach(async () => {
    for (const w of workers) await w.stop();
    workers = [];
  });

  it('drives a run through CLAIMED and INPROGRESS to SUCCEEDED, reporting progress', async () => {
    const store = createMemoryStore();
    handler = createAgentRunHandler({ store });
    const transitions: string[] = [];
    handler.events.on('run.state_changed', (e) => transitions.push(`${e.from}->${e.to}`));
    const runId = await create();
    start(demoExecutor({ durationMs: 60 }));
    await waitState(runId, 'SUCCEEDED');
    expect(transitions).toEqual(['QUEUED->CLAIMED', 'CLAIMED->INPROGRESS', 'INPROGRESS->SUCCEEDED']);
    const run = await handler.service.get(principal, runId);
    expect(run.status_message).toEqual({ message: 'Done' });
    expect(run.started_at).toEqual(expect.any(String));
    // Its transcript: one event per step it reported, in order (docs/run-api.md, "Run events").
    const events = await store.runEvents.list(runId, { limit: 100 });
    const said = (data: unknown) => (data as { message?: string }).message ?? (data as { to?: string }).to;
    expect(events.map((e) => [e.id, e.type, said(e.data)])).toEqual([
      [1, 'state', 'CLAIMED'],
      [2, 'state', 'INPROGRESS'],
      [3, 'status', 'Reading the task (1/3)'],
      [4, 'status', 'Working on it (2/3)'],
      [5, 'status', 'Wrapping up (3/3)'],
      [6, 'state', 'SUCCEEDED'],
    ]);
  });

  it("calls the executor's sweep once as it starts, and tells its failure to onError", async () => {
    handler = createAgentRunHandler({ store: createMemoryStore() });
    const swept: string[] = [];
    const errors: unknown[] = [];
    const sweeping = (fail: boolean): Executor => ({
      ...demoExecutor({ durationMs: 30 }),
      async sweep() {
        swept.push(fail ? 'failed' : 'swept');
        if (fail) throw new Error('the engine is gone');
      },
    });
    const worker = start(sweeping(false));
    // A second start of a started worker is nothing: no second sweep.
    worker.start();
    await waitState(await create(), 'SUCCEEDED');
    expect(swept).toEqual(['swept']);
    start(sweeping(true), { onError: (e) => errors.push(e) });
    await until(() => errors.length > 0, 'the failure to be told');
    expect(swept).toEqual(['swept', 'failed']);
    expect(String(errors[0])).toContain('the engine is gone');
  });

  it('fails a run the demo executor is asked to fail, and succeeds it after a follow-up', async () => {
    handler = createAgentRunHandler({ store: createMemoryStore() });
    const runId = await create('this should fail');
    start(demoExecutor({ durationMs: 30 }));
    await waitState(runId, 'FAILED');
    expect((await handler.service.get(principal, runId)).status_message).toMatchObject({ error_code: 'demo_failure' });
    await handler.service.followup(principal, runId, { message: 'try again, properly this time' });
    await waitState(runId, 'SUCCEEDED');
  });

  it('a cancel aborts the running execution and the run stays CANCELLED', async () => {
    handler = createAgentRunHandler({ store: createMemoryStore() });
    const { executor, calls } = steeredExecutor();
    const runId = await create();
    start(executor);
    await until(() => calls.length === 1, 'the execution');
    await waitState(runId, 'INPROGRESS');
    await handler.service.cancel(principal, runId);
    expect(calls[0]?.ctx.signal.aborted).toBe(true);
    calls[0]?.settle({ status: 'succeeded' });
    await new Promise((r) => setTimeout(r, 30));
    expect(await stateOf(runId)).toBe('CANCELLED');
  });

  it('an executor that throws ends the run in ERROR without leaking the message', async () => {
    handler = createAgentRunHandler({ store: createMemoryStore() });
    const { executor, calls } = steeredExecutor();
    const errors: unknown[] = [];
    const runId = await create();
    start(executor, { onError: (e) => errors.push(e) });
    await until(() => calls.length === 1, 'the execution');
    calls[0]?.settle(new Error('secret internal detail'));
    await waitState(runId, 'ERROR');
    const run = await handler.service.get(principal, runId);
    expect(run.status_message).toEqual({ message: 'The executor failed', error_code: 'executor_error', retryable: true });
    expect(JSON.stringify(run)).not.toContain('secret internal detail');
    expect(errors).toHaveLength(1);
  });

  it('delivers follow-ups to the running execution, and reports and blocks through the context', async () => {
    handler = createAgentRunHandler({ store: createMemoryStore() });
    const { executor, calls } = steeredExecutor();
    const runId = await create();
    start(executor);
    await until(() => calls.length === 1, 'the execution');
    await waitState(runId, 'INPROGRESS');
    const call = calls[0]!;
    await call.ctx.report({ message: 'halfway', session_link: 'https://sessions.example/1' });
    expect(await handler.service.get(principal, runId)).toMatchObject({
      status_message: { message: 'halfway' },
      session_link: 'https://sessions.example/1',
    });
    await call.ctx.block('need a decision');
    expect(await stateOf(runId)).toBe('BLOCKED');
    const reply = await handler.service.followup(principal, runId, { message: 'go with option B' });
    expect(reply.body).toEqual({ run_id: runId, state: 'BLOCKED' });
    await until(() => call.followups.length === 1, 'the follow-up');
    expect(call.followups[0]?.message).toBe('go with option B');
    await call.ctx.resume();
    call.settle({ status: 'succeeded', message: 'chose B' });
    await waitState(runId, 'SUCCEEDED');
  });

  it('a re-queued run gets its follow-ups as input', async () => {
    handler = createAgentRunHandler({ store: createMemoryStore() });
    const { executor, calls } = steeredExecutor();
    const runId = await create();
    start(executor);
    await until(() => calls.length === 1, 'the first execution');
    calls[0]?.settle({ status: 'succeeded' });
    await waitState(runId, 'SUCCEEDED');
    await handler.service.followup(principal, runId, { message: 'one more thing' });
    await until(() => calls.length === 2, 'the second execution');
    expect(calls[1]?.input.followups.map((f) => f.message)).toEqual(['one more thing']);
    expect(calls[1]?.input.attempt).toBe(1);
  });

  it('runs at most `concurrency` executions at once', async () => {
    handler = createAgentRunHandler({ store: createMemoryStore() });
    const { executor, calls } = steeredExecutor();
    for (let i = 0; i < 5; i++) await create(`task ${i}`);
    start(executor, { concurrency: 2 });
    await until(() => calls.length === 2, 'two executions');
    await new Promise((r) => setTimeout(r, 60));
    expect(calls).toHaveLength(2);
    calls[0]?.settle({ status: 'succeeded' });
    await until(() => calls.length === 3, 'a third execution once a slot frees');
  });

  it('re-queues a run whose worker stopped renewing its lease, then ends it in ERROR after maxAttempts', async () => {
    let now = Date.UTC(2026, 0, 1);
    const clock = { now: () => now };
    const store = createMemoryStore();
    handler = createAgentRunHandler({ store, clock, maxAttempts: 2 });
    const runId = await create();
    const rescuer = handler.app.worker({ executor: demoExecutor({ durationMs: 1 }), leaseMs: 1000 });

    // A worker that claims and then dies: nothing renews its lease.
    await store.runs.claimNext({
      workerId: 'dead-1',
      now: new Date(now).toISOString(),
      leaseExpiresAt: new Date(now + 1000).toISOString(),
    });
    expect(await rescuer.recoverExpiredLeases()).toBe(0);
    now += 1000;
    expect(await rescuer.recoverExpiredLeases()).toBe(1);
    expect(await handler.service.get(principal, runId)).toMatchObject({ state: 'QUEUED', status_message: { retryable: true } });

    await store.runs.claimNext({
      workerId: 'dead-2',
      now: new Date(now).toISOString(),
      leaseExpiresAt: new Date(now + 1000).toISOString(),
    });
    now += 1001;
    expect(await rescuer.recoverExpiredLeases()).toBe(1);
    expect(await handler.service.get(principal, runId)).toMatchObject({ state: 'ERROR', status_message: { error_code: 'lease_expired' } });
  });

  it('stop() aborts executions and hands their runs back to the queue', async () => {
    handler = createAgentRunHandler({ store: createMemoryStore() });
    const { executor, calls } = steeredExecutor();
    const runId = await create();
    const worker = start(executor);
    await until(() => calls.length === 1, 'the execution');
    await waitState(runId, 'INPROGRESS');
    await worker.stop();
    expect(calls[0]?.ctx.signal.aborted).toBe(true);
    expect(await stateOf(runId)).toBe('QUEUED');
  });

  it('a run cancelled between claim and start never becomes INPROGRESS', async () => {
    const store = createMemoryStore();
    handler = createAgentRunHandler({ store });
    const runId = await create();
    const claimed = await store.runs.claimNext({
      workerId: 'w',
      now: new Date().toISOString(),
      leaseExpiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(claimed?.id).toBe(runId);
    await handler.service.cancel(principal, runId);
    const start = await handler.service.applyEvent(runId, { type: 'start' }, { workerId: 'w' });
    expect(start.kind).toBe('lease_lost');
    expect(await stateOf(runId)).toBe('CANCELLED');
  });

  it('a run nobody else writes is never read by its worker: start, reports, block, resume and finish write on the state it last wrote', async () => {
    const store = createMemoryStore();
    let reads = 0;
    const counted = {
      ...store,
      runs: {
        ...store.runs,
        get: (...args: Parameters<typeof store.runs.get>) => {
          reads++;
          return store.runs.get(...args);
        },
      },
    };
    handler = createAgentRunHandler({ store: counted });
    const ended = new Promise<void>((resolve) => handler.events.on('run.state_changed', (e) => e.to === 'SUCCEEDED' && resolve()));
    const { executor, calls } = steeredExecutor();
    const runId = await create();
    start(executor);
    await until(() => calls.length === 1, 'the execution');
    const call = calls[0]!;
    await call.ctx.report({ message: 'halfway' });
    await call.ctx.block('need a decision');
    await call.ctx.resume();
    await call.ctx.report({ message: 'decided' });
    call.settle({ status: 'succeeded', message: 'done' });
    await ended;
    expect(reads).toBe(0);
    const events = (await store.runEvents.list(runId, { after: 0, limit: 100 })).map((e) => {
      const data = e.data as { to?: string; message?: string };
      return e.type === 'state' ? data.to : data.message;
    });
    expect(events).toEqual(['CLAIMED', 'INPROGRESS', 'halfway', 'BLOCKED', 'INPROGRESS', 'decided', 'SUCCEEDED']);
  });

  it("a report after a cancel writes nothing: the worker's compare-and-set on the state it last wrote fails, and the run is read then", async () => {
    const store = createMemoryStore();
    handler = createAgentRunHandler({ store });
    const { executor, calls } = steeredExecutor();
    const runId = await create();
    start(executor);
    await until(() => calls.length === 1, 'the execution');
    await waitState(runId, 'INPROGRESS');
    await handler.service.cancel(principal, runId);
    await calls[0]?.ctx.report({ message: 'too late' });
    expect(await handler.service.get(principal, runId)).toMatchObject({
      state: 'CANCELLED',
      status_message: { message: expect.stringMatching(/^Cancelled by/) },
    });
    const events = await store.runEvents.list(runId, { after: 0, limit: 100 });
    expect(events.some((e) => e.type === 'status')).toBe(false);
  });

  it('applyEvent decides on a `current` run only as a guess: a stale one is read again, and refused only as it is now', async () => {
    const store = createMemoryStore();
    handler = createAgentRunHandler({ store });
    const runId = await create();
    const queued = (await store.runs.get(runId))!;
    const claim = () =>
      store.runs.claimNext({ workerId: 'w', now: new Date().toISOString(), leaseExpiresAt: new Date(Date.now() + 60_000).toISOString() });
    const claimed = (await claim())!;
    // Stale (QUEUED, no lease): read again, and it is w's to start.
    expect((await handler.service.applyEvent(runId, { type: 'start' }, { workerId: 'w', current: queued })).kind).toBe('applied');
    // Stale (CLAIMED) after a cancel: the write fails, the run is read, and it is not w's any more.
    await handler.service.cancel(principal, runId);
    const late = await handler.service.applyEvent(runId, { type: 'succeed' }, { workerId: 'w', current: claimed });
    expect(late.kind).toBe('lease_lost');
    expect(await stateOf(runId)).toBe('CANCELLED');
  });
});

describe('a store outage', () => {
  it('is reported once per 10 s while polls fail, other errors every time, and polling resumes after', async () => {
    const store = createMemoryStore();
    let down = true;
    const outage = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const claimNext = store.runs.claimNext.bind(store.runs);
    store.runs.claimNext = async (...args) => {
      if (down) throw outage;
      return claimNext(...args);
    };
    const flaky = Object.assign(store, { isUnavailable: (e: unknown) => e === outage });
    const handler = createAgentRunHandler({ store: flaky });
    const reported: unknown[] = [];
    const worker = handler.app.worker({ executor: demoExecutor({ durationMs: 1 }), onError: (e) => reported.push(e) });
    for (let i = 0; i < 5; i++) await worker.poll().catch(() => 0);
    expect(reported).toEqual([outage]);
    down = false;
    await handler.service.create(principal, { prompt: 'after' });
    expect(await worker.poll()).toBe(1);
    await worker.idle();
  });

  it('backs off while its timed polls fail (not one query per interval) and resumes by itself when the store returns', async () => {
    vi.useFakeTimers();
    try {
      const store = createMemoryStore();
      const handler = createAgentRunHandler({ store });
      const { run_id } = (await handler.service.create(principal, { prompt: 'queued before the outage' })).body;
      let down = true;
      const claims: ('failed' | 'answered')[] = [];
      const claimNext = store.runs.claimNext.bind(store.runs);
      store.runs.claimNext = async (...args) => {
        claims.push(down ? 'failed' : 'answered');
        if (down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        return claimNext(...args);
      };
      const listExpiredLeases = store.runs.listExpiredLeases.bind(store.runs);
      store.runs.listExpiredLeases = async (...args) => {
        if (down) throw new Error('Connection terminated unexpectedly');
        return listExpiredLeases(...args);
      };
      const worker = handler.app.worker({ executor: demoExecutor({ durationMs: 1 }), pollIntervalMs: 100, onError: () => {} });
      worker.start();
      // 3 s of outage is 30 intervals: polls at 0, 200, 600, 1400 and 3000 ms (each wait doubled).
      await vi.advanceTimersByTimeAsync(3_050);
      expect(claims).toEqual(Array(5).fill('failed'));
      // The store returns; no event tells the worker: its next timed poll (within 10 s) claims the run.
      down = false;
      await vi.advanceTimersByTimeAsync(MAX_BACKOFF_MS);
      expect(claims).toContain('answered');
      expect((await store.runs.get(run_id))?.state).not.toBe('QUEUED');
      await worker.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});
