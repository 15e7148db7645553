import { referenceMatch } from '@agentrun/test-utils/filter-reference';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileFilter } from '../src/filter/compile.js';
import { explainFilter } from '../src/filter/explain.js';
import { classifyCondition } from '../src/filter/operators.js';
import { parseFilter } from '../src/filter/parse.js';
import { childPath } from '../src/filter/path.js';
import type { FilterCondition, JsonValue, PayloadFilter } from '../src/filter/types.js';

/**
 * The compiled matcher against the reference interpreter (@agentrun/test-utils/filter-reference) on random
 * filters and payloads. Payloads are built from the filter they meet, so they often hold its keys
 * and allowed values and both answers are common. Runs per CI run: 5,000 + 1,500 (reference),
 * 1,500 + 1,500 (never throws), 1,500 (explain), 1,000 (parse round trip) = 12,000.
 */

/** Few keys, so filters and payloads meet; some of them live on Object.prototype. */
const KEYS = ['a', 'b', 'c', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'x.y', ''];

/** Values that are equal or nearly so in JSON's eyes, so equality is tested where it is subtle. */
const VALUES: JsonValue[] = [
  0,
  1,
  -1,
  2.5,
  'a',
  'b',
  '1',
  '',
  true,
  false,
  null,
  [],
  [1],
  ['a', 1],
  [[1]],
  {},
  { a: 1 },
  { a: [1, 'b'] },
  { b: { a: 1 } },
  JSON.parse('{"__proto__": 1}'),
];

const object = (entries: readonly (readonly [string, unknown])[]): Record<string, unknown> => Object.fromEntries(entries);

const valueArb: fc.Arbitrary<JsonValue> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...VALUES) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue> },
);

const listArb = fc.array(valueArb, { maxLength: 4 });

const operatorsArb = fc
  .record({ in: listArb, not_in: listArb, exists: fc.boolean() }, { requiredKeys: [] })
  .filter((operators) => Object.keys(operators).length > 0);

/** A filter `depth` levels deep at most; nested ones may be empty, top-level ones rarely are. */
const filterArb = (depth: number, minKeys = 0): fc.Arbitrary<PayloadFilter> => {
  const condition: fc.Arbitrary<FilterCondition> =
    depth <= 1
      ? fc.oneof(listArb, operatorsArb)
      : fc.oneof({ weight: 2, arbitrary: listArb }, { weight: 2, arbitrary: operatorsArb }, filterArb(depth - 1));
  return fc
    .array(fc.tuple(fc.constantFrom(...KEYS), condition), { minLength: minKeys, maxLength: minKeys > 0 ? 3 : 2 })
    .map((entries) => object(entries) as PayloadFilter);
};

const topFilterArb = fc.oneof({ weight: 1, arbitrary: fc.constant({}) }, { weight: 19, arbitrary: filterArb(3, 1) });

/** Values a payload might hold at a key with `condition`: often ones the filter names. */
function valueFor(condition: FilterCondition, depth: number): fc.Arbitrary<unknown> {
  const classified = classifyCondition(condition);
  if (classified.kind === 'nested') {
    const inner = payloadFor(classified.filter, depth - 1);
    return fc.oneof(
      { weight: 10, arbitrary: inner },
      { weight: 2, arbitrary: fc.array(fc.oneof(inner, valueArb), { maxLength: 3 }) },
      { weight: 1, arbitrary: valueArb },
    );
  }
  // Mostly allowed values, sometimes excluded ones, arrays of either, or anything.
  const allowed = classified.kind === 'list' ? classified.values : (classified.operators.in ?? []);
  const excluded = classified.kind === 'list' ? [] : (classified.operators.not_in ?? []);
  const named = [...allowed, ...excluded];
  if (named.length === 0) return valueArb;
  const pick = allowed.length > 0 ? fc.constantFrom(...allowed) : fc.constantFrom(...named);
  return fc.oneof(
    { weight: 10, arbitrary: pick },
    { weight: 1, arbitrary: fc.constantFrom(...named) },
    { weight: 2, arbitrary: fc.array(fc.oneof(pick, valueArb), { maxLength: 3 }) },
    { weight: 1, arbitrary: valueArb },
  );
}

/** An object that may hold each of the filter's keys (or not), plus a few other keys. */
function payloadFor(filter: PayloadFilter, depth = 4): fc.Arbitrary<unknown> {
  if (depth <= 0) return valueArb;
  const own = Object.keys(filter).map((key) =>
    fc.option(
      valueFor(filter[key] as FilterCondition, depth).map((value) => [key, value] as const),
      { nil: undefined, freq: 12 },
    ),
  );
  const extra = fc.array(fc.tuple(fc.constantFrom(...KEYS), valueArb), { maxLength: 2 });
  return fc.tuple(extra, fc.tuple(...own)).map(([others, mine]) => object([...others, ...mine.filter((entry) => entry !== undefined)]));
}

/** A filter, and a payload meant for it (now and then not even an object). */
const casesArb = topFilterArb.chain((filter) =>
  fc.tuple(fc.constant(filter), fc.oneof({ weight: 19, arbitrary: payloadFor(filter) }, { weight: 1, arbitrary: valueArb })),
);

/** Every path `explainFilter` may name: `''` and each field key's path. */
function filterPaths(filter: PayloadFilter, path = '', into = new Set<string>([''])): Set<string> {
  for (const key of Object.keys(filter)) {
    const keyPath = childPath(path, key);
    into.add(keyPath);
    const classified = classifyCondition(filter[key] as FilterCondition);
    if (classified.kind === 'nested') filterPaths(classified.filter, keyPath, into);
  }
  return into;
}

describe('payload filters: properties', () => {
  it('the compiled matcher agrees with the reference interpreter, with both answers common', () => {
    let nonEmpty = 0;
    let matched = 0;
    fc.assert(
      fc.property(casesArb, ([filter, payload]) => {
        const expected = referenceMatch(filter, payload);
        expect(compileFilter(filter)(payload)).toBe(expected);
        if (Object.keys(filter).length > 0) {
          nonEmpty++;
          if (expected) matched++;
        }
      }),
      { numRuns: 5_000 },
    );
    // Both outcomes must be well represented (about 30% match), or the agreement says little.
    expect(nonEmpty).toBeGreaterThan(4_000);
    expect(matched / nonEmpty).toBeGreaterThan(0.2);
    expect(matched / nonEmpty).toBeLessThan(0.8);
  });

  it('agrees with the reference on arbitrary JSON payloads too', () => {
    const payloadArb = fc.oneof(fc.jsonValue(), fc.dictionary(fc.constantFrom(...KEYS), fc.jsonValue({ maxDepth: 3 })));
    fc.assert(
      fc.property(filterArb(3), payloadArb, (filter, payload) => {
        expect(compileFilter(filter)(payload)).toBe(referenceMatch(filter, payload));
      }),
      { numRuns: 1_500 },
    );
  });

  it('never throws, on any JSON value', () => {
    fc.assert(
      fc.property(filterArb(3), fc.jsonValue(), (filter, payload) => {
        expect(typeof compileFilter(filter)(payload)).toBe('boolean');
      }),
      { numRuns: 1_500 },
    );
  });

  it('never throws, on any JavaScript value', () => {
    const anything = fc.anything({
      key: fc.constantFrom(...KEYS, 'length', 'valueOf'),
      maxDepth: 4,
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
      withUnicodeString: true,
    });
    fc.assert(
      fc.property(filterArb(3), anything, (filter, payload) => {
        expect(typeof compileFilter(filter)(payload)).toBe('boolean');
      }),
      { numRuns: 1_500 },
    );
  });

  it('explainFilter agrees with the matcher and names a path of the filter', () => {
    fc.assert(
      fc.property(casesArb, ([filter, payload]) => {
        const explanation = explainFilter(filter, payload);
        expect(explanation.matched).toBe(compileFilter(filter)(payload));
        if (!explanation.matched) {
          expect(filterPaths(filter).has(explanation.path)).toBe(true);
          expect(explanation.reason).not.toBe('');
        }
      }),
      { numRuns: 1_500 },
    );
  });

  it('parseFilter accepts every well-formed filter and returns an equal copy', () => {
    fc.assert(
      fc.property(filterArb(3), (filter) => {
        const parsed = parseFilter(filter);
        expect(JSON.stringify(parsed)).toBe(JSON.stringify(filter));
        expect(parsed).toEqual(filter);
      }),
      { numRuns: 1_000 },
    );
  });
});
