import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucketIndex, bucketStarts, statsWindow } from '../src/stats/buckets.js';
import {
  bucketValue,
  DURATION_HISTOGRAM_BOUNDS_MS,
  DURATION_HISTOGRAM_SIZE,
  durationBucket,
  percentileFromHistogram,
} from '../src/stats/histogram.js';
import { STATS_RANGE_NAMES, STATS_RANGES } from '../src/stats/ranges.js';

const instant = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2200, 0, 1) });
const rangeName = fc.constantFrom(...STATS_RANGE_NAMES);

describe('stats buckets', () => {
  it('has the contract’s steps and bucket counts', () => {
    expect(Object.fromEntries(STATS_RANGE_NAMES.map((r) => [r, [STATS_RANGES[r].stepSeconds, statsWindow(r, 0).count]]))).toEqual({
      '1h': [60, 60],
      '24h': [900, 96],
      '7d': [7200, 84],
    });
  });

  it('aligns every bucket to a multiple of its step, covers the range, and puts now in the last bucket', () => {
    fc.assert(
      fc.property(rangeName, instant, (range, now) => {
        const w = statsWindow(range, now);
        const step = STATS_RANGES[range].stepSeconds * 1000;
        const starts = bucketStarts(w);
        expect(starts).toHaveLength(STATS_RANGES[range].seconds / STATS_RANGES[range].stepSeconds);
        for (const s of starts) expect(s % step).toBe(0);
        expect(w.toMs - w.fromMs).toBe(STATS_RANGES[range].seconds * 1000);
        expect(starts[starts.length - 1]).toBeLessThanOrEqual(now);
        expect(now).toBeLessThan(w.toMs);
        expect(bucketIndex(w, now)).toBe(w.count - 1);
      }),
    );
  });

  it('puts an instant in the bucket whose span holds it, and none outside the window', () => {
    fc.assert(
      fc.property(rangeName, instant, fc.integer({ min: -10 * 86_400_000, max: 86_400_000 }), (range, now, offset) => {
        const w = statsWindow(range, now);
        const at = now + offset;
        const i = bucketIndex(w, at);
        if (at < w.fromMs || at >= w.toMs) expect(i).toBe(-1);
        else {
          const start = bucketStarts(w)[i] as number;
          expect(start).toBeLessThanOrEqual(at);
          expect(at).toBeLessThan(start + w.stepMs);
        }
      }),
    );
  });
});

describe('duration histogram', () => {
  it('has increasing bounds from 100 ms, four per doubling', () => {
    expect(DURATION_HISTOGRAM_BOUNDS_MS[0]).toBe(100);
    expect(DURATION_HISTOGRAM_BOUNDS_MS[4]).toBe(200);
    for (let i = 1; i < DURATION_HISTOGRAM_BOUNDS_MS.length; i++)
      expect(DURATION_HISTOGRAM_BOUNDS_MS[i]).toBeGreaterThan(DURATION_HISTOGRAM_BOUNDS_MS[i - 1] as number);
    expect(DURATION_HISTOGRAM_SIZE).toBe(DURATION_HISTOGRAM_BOUNDS_MS.length + 1);
  });

  it('puts a duration in the bucket whose bounds hold it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 * 86_400_000 }), (ms) => {
        const b = durationBucket(ms);
        const lo = b === 0 ? 0 : (DURATION_HISTOGRAM_BOUNDS_MS[b - 1] as number);
        const hi = DURATION_HISTOGRAM_BOUNDS_MS[b] ?? Number.POSITIVE_INFINITY;
        expect(lo).toBeLessThanOrEqual(ms);
        expect(ms).toBeLessThan(hi);
      }),
    );
  });

  it('reads a percentile within 9.1 % of the exact nearest-rank value, past 100 ms and under the last bound', () => {
    const last = DURATION_HISTOGRAM_BOUNDS_MS[DURATION_HISTOGRAM_BOUNDS_MS.length - 1] as number;
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 100, max: last - 1 }), { minLength: 1, maxLength: 200 }),
        fc.constantFrom(0.5, 0.95, 0.99, 1),
        (durations, p) => {
          const counts = new Array<number>(DURATION_HISTOGRAM_SIZE).fill(0);
          for (const d of durations) counts[durationBucket(d)] = (counts[durationBucket(d)] ?? 0) + 1;
          const sorted = [...durations].sort((a, b) => a - b);
          const exact = sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1] as number;
          const estimate = percentileFromHistogram(counts, p);
          expect(Math.abs(estimate - exact) / exact).toBeLessThanOrEqual(2 ** (1 / 8) - 1 + 0.005);
          // Monotone in p.
          expect(percentileFromHistogram(counts, 0.5)).toBeLessThanOrEqual(percentileFromHistogram(counts, 0.95));
        },
      ),
    );
  });

  it('answers 0 for no durations, and a bucket’s value for one', () => {
    expect(percentileFromHistogram(new Array(DURATION_HISTOGRAM_SIZE).fill(0), 0.5)).toBe(0);
    const one = new Array<number>(DURATION_HISTOGRAM_SIZE).fill(0);
    one[durationBucket(1500)] = 1;
    expect(percentileFromHistogram(one, 0.95)).toBe(bucketValue(durationBucket(1500)));
  });
});
