import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_USAGE, mergeUsage, REQUEST_USAGE_FIELDS } from '../src/models/request-usage.js';

// A run's request_usage comes from its agent (docs/run-api.md, "The run: `RunItem`"): whatever a
// report holds, what is kept is at most the six known fields, each a number from 0 to MAX_USAGE.

const anyValue = fc.oneof(
  fc.double(),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 1e300),
  fc.string(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.nat()),
);
const report = fc.dictionary(fc.oneof(fc.constantFrom(...REQUEST_USAGE_FIELDS), fc.string()), anyValue);

describe('mergeUsage', () => {
  it('keeps only the known fields, as finite numbers clamped to 0…MAX_USAGE, over any reports', () => {
    fc.assert(
      fc.property(fc.array(report, { maxLength: 6 }), (reports) => {
        let usage = null as ReturnType<typeof mergeUsage>;
        for (const r of reports) usage = mergeUsage(usage, r);
        for (const [key, value] of Object.entries(usage ?? {})) {
          expect(REQUEST_USAGE_FIELDS).toContain(key);
          expect(Number.isFinite(value)).toBe(true);
          expect(value).toBeGreaterThanOrEqual(0);
          expect(value).toBeLessThanOrEqual(MAX_USAGE);
        }
      }),
    );
  });

  it('replaces the fields a report gives, keeps the others, and stays null until something valid comes', () => {
    expect(mergeUsage(null, { compute_cost: 'x', other: 5 })).toBeNull();
    const first = mergeUsage(null, { compute_cost: 1.5, inference_cost: 2 });
    expect(first).toEqual({ compute_cost: 1.5, inference_cost: 2 });
    expect(mergeUsage(first, { inference_cost: 3, platform_cost: -4 })).toEqual({ compute_cost: 1.5, inference_cost: 3, platform_cost: 0 });
    expect(mergeUsage(first, { compute_cost: 1e20 })).toEqual({ compute_cost: MAX_USAGE, inference_cost: 2 });
    expect(mergeUsage(first, { compute_cost: Number.NaN })).toEqual(first);
  });
});
