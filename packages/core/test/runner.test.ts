import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import { describe, expect, it, vi } from 'vitest';
import { createAgentRun, createLoop, createRunner, demoExecutor, type ExecutionContext, type Executor, loopPart } from '../src/index.js';

// The runner (docs/embedding.md, "The runner"): its parts, its one stop, its loop, its health report.

const principal = testPrincipal();
const HOUR = 3_600_000;
const ALL = ['runs', 'presence', 'evaluation', 'schedules', 'maintenance', 'callbacks', 'sources'];

/** Executions the test ends by hand; an aborted one rejects with the signal's reason. */
function heldExecutor() {
  const held: { ctx: ExecutionContext; finish: () => void }[] = [];
  const executor: Executor = {
    execute: (_input, ctx) =>
      new Promise((resolve, reject) => {
        held.push({ ctx, finish: () => resolve({ status: 'succeeded', message: 'finished in time' }) });
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
      }),
  };
  return { executor, held };
}

const deferred = () => {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

describe('agentrun.runner()', () => {
  const setup = () => {
    const agentrun = createAgentRun({ store: createMemoryStore(), executor: demoExecutor({ durationMs: 1 }) });
    const create = async () => (await agentrun.services.runs.create(principal, { prompt: 'p' })).body.run_id;
    const stateOf = async (runId: string) => (await agentrun.services.runs.get(principal, runId)).state;
    const readiness = async () =>
      (await (await agentrun.fetch(new Request('http://agentrun.test/readyz'))).json()) as Record<string, unknown>;
    return { agentrun, create, stateOf, readiness };
  };

  it('runs every part by default, each switchable; a part off is not run at all', async () => {
    const { agentrun, create, stateOf } = setup();
    expect(agentrun.runner().parts).toEqual(ALL);
    expect(agentrun.worker().id).toEqual(expect.any(String));
    const runnerless = agentrun.runner({ runs: false, evaluation: false, schedules: false, callbacks: false, sources: false, tickMs: 5 });
    expect(runnerless.parts).toEqual(['maintenance']);
    expect(runnerless.worker).toBeUndefined();

    const runId = await create();
    runnerless.start();
    // Its maintenance part passes again and again; no part claims the run.
    await vi.waitFor(() => expect(runnerless.health().parts[0]?.lastSuccessAt).not.toBeNull());
    expect(await stateOf(runId)).toBe('QUEUED');
    await runnerless.stop();

    const workerOnly = agentrun.runner({
      runs: { pollIntervalMs: 10 },
      evaluation: false,
      schedules: false,
      maintenance: false,
      callbacks: false,
      sources: false,
    });
    expect(workerOnly.parts).toEqual(['runs', 'presence']);
    workerOnly.start();
    await vi.waitFor(async () => expect(await stateOf(runId)).toBe('SUCCEEDED'));
    await workerOnly.stop();
  });

  it('refuses bad options with a clear error', () => {
    const { agentrun } = setup();
    expect(() => agentrun.runner({ evaluation: 'yes' } as never)).toThrow(/agentrun\.runner: option evaluation must be true or false/);
    expect(() => agentrun.runner({ Runs: false } as never)).toThrow(/agentrun\.runner: unknown option Runs \(did you mean runs\?\)/);
    expect(() => agentrun.runner({ parts: [{ name: 'x' }] } as never)).toThrow(/option parts\.0 must be a RunnerPart/);
    const part = loopPart({ name: 'runs', everyMs: HOUR, onError: () => {}, pass: async () => {} });
    expect(() => agentrun.runner({ parts: [part] })).toThrow(/two parts are named runs/);
  });

  it('stops every part with one stop: nothing new is claimed, and it waits for the work under way', async () => {
    const { agentrun, create, stateOf } = setup();
    const { executor, held } = heldExecutor();
    const pass = deferred();
    let passes = 0;
    let passEnded = false;
    const host = loopPart({
      name: 'beacon',
      everyMs: HOUR,
      onError: () => {},
      pass: async () => {
        passes++;
        await pass.promise;
        passEnded = true;
      },
    });
    const runner = agentrun.runner({ runs: { executor, pollIntervalMs: 10 }, parts: [host] });
    expect(runner.parts).toEqual([...ALL, 'beacon']);
    runner.start();
    const first = await create();
    await vi.waitFor(() => expect(held).toHaveLength(1));
    expect(passes).toBe(1);

    let stopped = false;
    const stopping = runner.stop({ graceMs: HOUR }).then(() => {
      stopped = true;
    });
    const second = await create();
    // Neither the execution nor the host's pass has ended: the stop waits for both.
    await new Promise((r) => setTimeout(r, 30));
    expect(stopped).toBe(false);
    expect(runner.health()).toMatchObject({ running: false });
    // Every part has stopped taking work; the worker's presence beats on while it holds a run.
    const runningNow = () =>
      runner
        .health()
        .parts.filter((p) => p.running)
        .map((p) => p.name);
    expect(runningNow()).toEqual(['presence']);
    held[0]?.finish();
    await vi.waitFor(async () => expect(await stateOf(first)).toBe('SUCCEEDED'));
    expect(stopped).toBe(false);
    pass.resolve();
    await stopping;
    expect(passEnded).toBe(true);
    expect(runningNow()).toEqual([]);
    expect(held).toHaveLength(1);
    expect(await stateOf(second)).toBe('QUEUED');
    expect(passes).toBe(1);
  });

  it('backs off a failing part alone: the others go on, and /readyz says which part fails', async () => {
    const { agentrun, create, stateOf, readiness } = setup();
    const errors: unknown[] = [];
    const flaky = loopPart({
      name: 'flaky',
      everyMs: 5,
      onError: (e) => errors.push(e),
      pass: async () => {
        throw new Error('flaky is down');
      },
    });
    const runner = agentrun.runner({ runs: { pollIntervalMs: 10 }, parts: [flaky] });
    runner.start();
    const runId = await create();
    await vi.waitFor(async () => expect(await stateOf(runId)).toBe('SUCCEEDED'));
    await vi.waitFor(() => expect(errors.length).toBeGreaterThanOrEqual(2));
    const parts = runner.health().parts;
    expect(parts.find((p) => p.name === 'flaky')).toMatchObject({ running: true, lastSuccessAt: null, consecutiveFailures: errors.length });
    expect(parts.find((p) => p.name === 'runs')).toMatchObject({ running: true, consecutiveFailures: 0, lastErrorAt: null });
    expect(parts.find((p) => p.name === 'runs')?.lastSuccessAt).toEqual(expect.any(Number));

    const ready = await readiness();
    expect(ready.status).toBe('ready');
    const reported = ready.parts as { runner: string; name: string; consecutive_failures: number; last_error_at: string | null }[];
    expect(reported.map((p) => p.name)).toEqual([...ALL, 'flaky']);
    expect(new Set(reported.map((p) => p.runner))).toEqual(new Set([runner.id]));
    const failing = reported.find((p) => p.name === 'flaky');
    expect(failing?.consecutive_failures).toBeGreaterThanOrEqual(2);
    expect(Date.parse(failing?.last_error_at ?? '')).not.toBeNaN();
    expect(reported.find((p) => p.name === 'runs')?.consecutive_failures).toBe(0);

    await runner.stop();
    // A stopped runner with a `runs` part: not ready.
    expect((await readiness()).errors).toEqual([{ path: 'workers', detail: 'none of 1 running' }]);
  });
});

describe('createRunner', () => {
  it('stops every part even when one fails to, then runs afterStop, then rejects with that failure', async () => {
    const order: string[] = [];
    const part = (name: string, fail = false) => ({
      name,
      start: () => order.push(`start ${name}`),
      stop: async () => {
        order.push(`stop ${name}`);
        if (fail) throw new Error(`${name} would not stop`);
      },
      health: () => ({ running: false, lastSuccessAt: null, lastErrorAt: null, consecutiveFailures: 0 }),
    });
    const runner = createRunner({
      id: 'r',
      parts: [part('a', true), part('b')],
      afterStop: async () => {
        order.push('after');
      },
    });
    runner.start();
    expect(runner.health().running).toBe(true);
    await expect(runner.stop()).rejects.toThrow('a would not stop');
    expect(order).toEqual(['start a', 'start b', 'stop a', 'stop b', 'after']);
    expect(runner.health().running).toBe(false);
  });
});

describe('the runner loop', () => {
  it('keeps a timer after a failure the wall clock puts a moment before the end of the wait', async () => {
    vi.useFakeTimers();
    try {
      let passes = 0;
      let behind = 0;
      const loop = createLoop<number>({
        pass: async () => {
          passes++;
          // The second pass runs from its timer while the wall clock reads 1 ms short of the wait's end.
          behind = passes === 2 ? 1 : 0;
          if (passes <= 2) throw new Error('down');
          return 1;
        },
        now: () => Date.now() - behind,
        nextMs: () => HOUR,
        backoff: { baseMs: 200, maxMs: 10_000, random: () => 0 },
        onError: () => {},
        failed: 0,
      });
      loop.start();
      await vi.advanceTimersByTimeAsync(200);
      expect(passes).toBe(2);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(passes).toBe(3);
      expect(loop.health().consecutiveFailures).toBe(0);
      await loop.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('backs its timer off while passes fail, each wait less a jitter share; a wake still passes at once', async () => {
    vi.useFakeTimers();
    try {
      let down = true;
      let passes = 0;
      const loop = createLoop<number>({
        pass: async () => {
          passes++;
          if (down) throw new Error('down');
          return 1;
        },
        nextMs: () => 100,
        // The largest share off: waits of 160, 320, 640, 1280, 2560 ms (base 200, doubled).
        backoff: { baseMs: 200, maxMs: 10_000, random: () => 1 },
        onError: () => {},
        failed: 0,
      });
      loop.start();
      await vi.advanceTimersByTimeAsync(2_500);
      // Passes at 0, 160, 480, 1120 and 2400 ms.
      expect(passes).toBe(5);
      expect(loop.health().consecutiveFailures).toBe(5);
      loop.wake();
      await vi.advanceTimersByTimeAsync(0);
      expect(passes).toBe(6);
      // A failure while waiting: the wait stands (next timed pass at 2400 + 2560 ms).
      await vi.advanceTimersByTimeAsync(4_959 - 2_500);
      expect(passes).toBe(6);
      down = false;
      await vi.advanceTimersByTimeAsync(1);
      expect(passes).toBe(7);
      expect(loop.health()).toMatchObject({ consecutiveFailures: 0, running: true });
      // Working again: every 100 ms.
      await vi.advanceTimersByTimeAsync(1_000);
      expect(passes).toBe(17);
      await loop.stop();
      await vi.advanceTimersByTimeAsync(1_000);
      expect(passes).toBe(17);
    } finally {
      vi.useRealTimers();
    }
  });
});
