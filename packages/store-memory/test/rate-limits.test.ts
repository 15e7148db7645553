import { createMemoryStore } from '@agentrun/store-memory';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/** The plain sliding window the ring must agree with: every event time kept, filtered per call. */
function reference() {
  const windows = new Map<string, number[]>();
  const inWindow = (key: string, windowMs: number, now: number) => {
    const events = (windows.get(key) ?? []).filter((t) => t > now - windowMs);
    windows.set(key, events);
    return events;
  };
  const retry = (events: number[], windowMs: number, now: number) =>
    events[0] === undefined ? 0 : Math.max(0, events[0] + windowMs - now);
  return {
    peek: (key: string, windowMs: number, now: number) => {
      const e = inWindow(key, windowMs, now);
      return { count: e.length, retryAfterMs: retry(e, windowMs, now) };
    },
    admit: (key: string, limit: number, windowMs: number, now: number) => {
      const e = inWindow(key, windowMs, now);
      if (e.length >= limit) return { allowed: false, retryAfterMs: retry(e, windowMs, now) };
      e.push(now);
      return { allowed: true };
    },
  };
}

describe('memory rate limits', () => {
  it('agree with a plain sliding window on random call sequences (time moving forward)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            peek: fc.boolean(),
            key: fc.constantFrom('a', 'b'),
            limit: fc.integer({ min: 0, max: 6 }),
            windowMs: fc.constantFrom(10, 50, 100),
            step: fc.integer({ min: 0, max: 40 }),
          }),
          { maxLength: 120 },
        ),
        async (calls) => {
          const { rateLimits } = createMemoryStore();
          const model = reference();
          let t = Date.parse('2030-01-01T00:00:00.000Z');
          for (const c of calls) {
            t += c.step;
            const now = new Date(t).toISOString();
            if (c.peek) expect(await rateLimits.peek({ key: c.key, windowMs: c.windowMs, now })).toEqual(model.peek(c.key, c.windowMs, t));
            else
              expect(await rateLimits.admit({ key: c.key, limit: c.limit, windowMs: c.windowMs, now })).toEqual(
                model.admit(c.key, c.limit, c.windowMs, t),
              );
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
