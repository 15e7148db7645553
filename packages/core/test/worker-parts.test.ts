import { describe, expect, it } from 'vitest';
import { backoff, MAX_BACKOFF_MS } from '../src/runner/backoff.js';
import { createLoop } from '../src/runner/loop.js';

// Parts of the worker, alone (docs/executors.md, "Worker parts").

const deferred = () => {
  let resolve: (n: number) => void = () => {};
  const promise = new Promise<number>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

const HOUR = 3_600_000;
const waits = { baseMs: 2000, maxMs: MAX_BACKOFF_MS };

describe('the runner loop (worker polls)', () => {
  it('runs one poll at a time; requests during a poll run exactly one more after it', async () => {
    const takes: ReturnType<typeof deferred>[] = [];
    const loop = createLoop<number>({
      pass: () => {
        const d = deferred();
        takes.push(d);
        return d.promise;
      },
      nextMs: () => HOUR,
      backoff: waits,
      onError: () => {},
      failed: 0,
    });
    loop.start();
    const first = loop.current;
    expect(loop.run()).toBe(first);
    expect(loop.run()).toBe(first);
    expect(takes).toHaveLength(1);
    takes[0]?.resolve(2);
    expect(await first).toBe(2);
    expect(takes).toHaveLength(2);
    takes[1]?.resolve(0);
    await loop.current;
    expect(takes).toHaveLength(2);
    expect(loop.current).toBeUndefined();
    await loop.stop();
  });

  it('reports a failed poll, answers 0 and backs off; a stopped worker polls no more after it', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const loop = createLoop<number>({
      pass: async () => {
        calls++;
        throw new Error('down');
      },
      nextMs: () => HOUR,
      backoff: waits,
      onError: (e) => errors.push(e),
      failed: 0,
    });
    const first = loop.run();
    loop.run();
    expect(await first).toBe(0);
    await loop.current;
    expect(calls).toBe(1);
    expect(errors).toHaveLength(1);
    expect(loop.health()).toMatchObject({ running: false, consecutiveFailures: 1, lastSuccessAt: null });
  });
});

describe('backoff', () => {
  it('doubles the wait after each failure up to MAX_BACKOFF_MS, counts failures while waiting once, and resets on success', () => {
    const b = backoff({ ...waits, random: () => 0 });
    b.failed(0);
    expect(b.due(1999)).toBe(false);
    expect(b.due(2000)).toBe(true);
    b.failed(1000); // while waiting: not counted
    expect(b.due(2000)).toBe(true);
    b.failed(2000);
    expect(b.due(5999)).toBe(false);
    expect(b.due(6000)).toBe(true);
    for (let i = 0; i < 10; i++) b.failed(10_000 * (i + 1) + 6000);
    expect(b.due(106_000 + MAX_BACKOFF_MS - 1)).toBe(false);
    expect(b.due(106_000 + MAX_BACKOFF_MS)).toBe(true);
    b.succeeded();
    expect(b.due(0)).toBe(true);
  });
});
