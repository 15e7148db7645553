import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createKeyUsage } from '../src/keys/key-usage.js';
import type { ApiKeyUse } from '../src/store/api-keys.js';

// The batched last_used_at writer (keys/key-usage.ts; docs/operations.md, "API keys"), on vitest's
// fake timers: what is written and when, with no real time waited.
describe('key usage batching', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const recorder = () => {
    const writes: ApiKeyUse[][] = [];
    const usage = createKeyUsage({ touch: async (uses) => void writes.push([...uses]) }, { flushMs: 10_000, onError: () => {} });
    return { writes, usage };
  };

  it('writes nothing and keeps no timer while no key is used', async () => {
    const { writes } = recorder();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(writes).toEqual([]);
  });

  it('one write per interval with the latest use of each key, then no timer until the next use', async () => {
    const { writes, usage } = recorder();
    usage.note('a', 1_000);
    usage.note('b', 2_000);
    usage.note('a', 3_000);
    usage.note('a', 2_500); // an earlier use noted late does not win
    await vi.advanceTimersByTimeAsync(9_999);
    expect(writes).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(writes).toEqual([
      [
        { hash: 'a', at: new Date(3_000).toISOString() },
        { hash: 'b', at: new Date(2_000).toISOString() },
      ],
    ]);
    expect(vi.getTimerCount()).toBe(0);
    usage.note('b', 20_000);
    await usage.flush();
    expect(writes).toHaveLength(2);
    expect(vi.getTimerCount()).toBe(0);
  });
});
