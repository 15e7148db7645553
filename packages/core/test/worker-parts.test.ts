import { describe, expect, it } from 'vitest';
import { MAX_BACKOFF_MS, pollBackoff } from '../src/worker/poll-backoff.js';
import { pollLoop } from '../src/worker/poll-loop.js';

// Parts of the worker, alone (docs/executors.md, "Worker parts").

const deferred = () => {
  let resolve: (n: number) => void = () => {};
  const promise = new Promise<number>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

describe('pollLoop', () => {
  it('runs one poll at a time; requests during a poll run exactly one more after it', async () => {
    const takes: ReturnType<typeof deferred>[] = [];
    const loop = pollLoop(
      () => {
        const d = deferred();
        takes.push(d);
        return d.promise;
      },
      { backoff: pollBackoff(1000), onError: () => {}, started: () => true },
    );
    const first = loop.schedule();
    expect(loop.schedule()).toBe(first);
    expect(loop.schedule()).toBe(first);
    expect(takes).toHaveLength(1);
    takes[0]?.resolve(2);
    expect(await first).toBe(2);
    expect(takes).toHaveLength(2);
    takes[1]?.resolve(0);
    await loop.current;
    expect(takes).toHaveLength(2);
    expect(loop.current).toBeUndefined();
  });

  it('reports a failed poll, answers 0 and backs off; a stopped worker polls no more after it', async () => {
    const errors: unknown[] = [];
    const backoff = pollBackoff(1000);
    let started = true;
    let calls = 0;
    const loop = pollLoop(
      async () => {
        calls++;
        started = false;
        throw new Error('down');
      },
      { backoff, onError: (e) => errors.push(e), started: () => started },
    );
    const first = loop.schedule();
    loop.schedule();
    expect(await first).toBe(0);
    await loop.current;
    expect(calls).toBe(1);
    expect(errors).toHaveLength(1);
    expect(backoff.due(Date.now())).toBe(false);
  });
});

describe('pollBackoff', () => {
  it('doubles the wait after each failure up to MAX_BACKOFF_MS, counts failures while waiting once, and resets on success', () => {
    const backoff = pollBackoff(1000);
    backoff.failed(0);
    expect(backoff.due(1999)).toBe(false);
    expect(backoff.due(2000)).toBe(true);
    backoff.failed(1000); // while waiting: not counted
    expect(backoff.due(2000)).toBe(true);
    backoff.failed(2000);
    expect(backoff.due(5999)).toBe(false);
    expect(backoff.due(6000)).toBe(true);
    for (let i = 0; i < 10; i++) backoff.failed(10_000 * (i + 1) + 6000);
    expect(backoff.due(106_000 + MAX_BACKOFF_MS - 1)).toBe(false);
    expect(backoff.due(106_000 + MAX_BACKOFF_MS)).toBe(true);
    backoff.succeeded();
    expect(backoff.due(0)).toBe(true);
  });
});
