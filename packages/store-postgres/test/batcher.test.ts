import { describe, expect, it } from 'vitest';
import { createBatcher } from '../src/batcher.js';

// The batcher alone (batcher.ts), its store calls replaced by ones the test settles.
function harness(maxInFlight: number, maxBatch: number, failMany = false) {
  const calls: string[] = [];
  const pending: (() => void)[] = [];
  const later = <T>(value: () => T) =>
    new Promise<T>((resolve, reject) =>
      pending.push(() => {
        try {
          resolve(value());
        } catch (error) {
          reject(error);
        }
      }),
    );
  const send = createBatcher<number, string>({
    one: (n) => {
      calls.push(`one ${n}`);
      return later(() => {
        if (n < 0) throw new Error(`refused ${n}`);
        return `alone ${n}`;
      });
    },
    many: (ns) => {
      calls.push(`many ${ns.join(',')}`);
      return later(() => {
        if (failMany) throw new Error('the batch failed');
        return ns.map((n) => `batched ${n}`);
      });
    },
    maxInFlight,
    maxBatch,
  });
  /** Settle the oldest call still out, then let its callbacks run. */
  const settle = async () => {
    pending.shift()?.();
    for (let i = 0; i < 10; i++) await Promise.resolve();
  };
  return { send, calls, settle };
}

describe('the accept batcher', () => {
  it('sends at once while fewer than maxInFlight are out; then queues, and sends what queued together when one returns', async () => {
    const h = harness(2, 3);
    const answers = [1, 2, 3, 4, 5, 6].map((n) => h.send(n));
    expect(h.calls).toEqual(['one 1', 'one 2']);
    await h.settle();
    expect(h.calls).toEqual(['one 1', 'one 2', 'many 3,4,5']);
    await h.settle();
    expect(h.calls).toEqual(['one 1', 'one 2', 'many 3,4,5', 'one 6']);
    await h.settle();
    await h.settle();
    expect(await Promise.all(answers)).toEqual(['alone 1', 'alone 2', 'batched 3', 'batched 4', 'batched 5', 'alone 6']);
  });

  it('answers each accept of a failed batch alone, with its own answer or error', async () => {
    const h = harness(1, 10, true);
    const answers = [1, 2, -3, 4].map((n) => h.send(n).catch((error: Error) => error.message));
    await h.settle(); // one 1
    expect(h.calls).toEqual(['one 1', 'many 2,-3,4']);
    await h.settle(); // the batch fails: each alone
    expect(h.calls).toEqual(['one 1', 'many 2,-3,4', 'one 2', 'one -3', 'one 4']);
    await h.settle();
    await h.settle();
    await h.settle();
    expect(await Promise.all(answers)).toEqual(['alone 1', 'alone 2', 'refused -3', 'alone 4']);
  });
});
