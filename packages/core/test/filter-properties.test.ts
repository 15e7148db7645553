import { referenceMatch } from '@agentrun/test-utils/filter-reference';
import fc from 'fast-check';
import sift from 'sift';
import { describe, expect, it } from 'vitest';
import { compileFilter } from '../src/filter/compile.js';
import { explainFilter } from '../src/filter/explain.js';
import { isObjectValue } from '../src/filter/json-equal.js';
import { classifyCondition } from '../src/filter/operators.js';
import { parseFilter } from '../src/filter/parse.js';
import { childPath } from '../src/filter/path.js';
import { splitFilter } from '../src/filter/polarity.js';
import type { FilterCondition, JsonValue, PayloadFilter } from '../src/filter/types.js';

/**
 * The compiled matcher against the reference interpreter (@agentrun/test-utils/filter-reference) on random
 * filters and payloads. Payloads are built from the filter they meet, so they often hold its keys
 * and allowed values and both answers are common. Where a filter reads the same as a MongoDB query,
 * both are also checked against sift, and a nested filter over an array against the same filter on
 * each element. Runs per CI run: 5,000 + 1,500 (reference), 3,000 (sift), 1,500 (arrays),
 * 1,500 + 1,500 (never throws), 1,500 (explain), 1,000 (parse round trip) = 16,500.
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

  it('a nested filter over an array: its positive part holds on some element object, its negative part on every one', () => {
    const elementsArb = filterArb(2, 1).chain((nested) =>
      fc.tuple(
        fc.constant(nested),
        fc.array(fc.oneof({ weight: 4, arbitrary: payloadFor(nested, 3) }, { weight: 1, arbitrary: valueArb }), { maxLength: 4 }),
      ),
    );
    let negativeBroken = 0;
    fc.assert(
      fc.property(elementsArb, ([nested, elements]) => {
        // The same filter one level down, on the array and on each element alone.
        const on = (condition: FilterCondition | undefined, value: unknown) =>
          condition === undefined || compileFilter({ k: condition } as PayloadFilter)({ k: value });
        const { positive, negative } = splitFilter(nested);
        const objects = elements.filter(isObjectValue);
        const some = objects.some((element) => on(positive, element));
        const every = objects.every((element) => on(negative, element));
        if (!every) negativeBroken++;
        expect(on(nested, elements)).toBe((positive === undefined || some) && every);
        expect(referenceMatch({ k: nested }, { k: elements })).toBe((positive === undefined || some) && every);
      }),
      { numRuns: 1_500 },
    );
    // Elements breaking a negative condition must be common, or this checks little.
    expect(negativeBroken).toBeGreaterThan(150);
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

/**
 * Filters that read the same as a MongoDB query (docs/filters.md, "Negative conditions": `not_in` is
 * `$nin`, `exists` is `$exists`, reached through dotted paths), checked against sift. The subset:
 * plain keys (no dots, no Object.prototype names), no `null` in lists (MongoDB's `null` also matches
 * a missing field), no object values (MongoDB compares them in key order), no empty nested filters,
 * no arrays inside arrays in payloads (sift flattens them), and at most one key with positive
 * conditions per nested filter (positive keys of one nested filter meet on one element, which a
 * dotted path does not say). Negative conditions anywhere, any number of them.
 */
describe('payload filters against sift (MongoDB semantics)', () => {
  const SIFT_KEYS = ['a', 'b', 'c'];
  const scalarArb = fc.constantFrom<JsonValue>(0, 1, 2, 'a', 'b', '1', '', true, false);
  const siftValueArb = fc.oneof({ weight: 4, arbitrary: scalarArb }, { weight: 1, arbitrary: fc.array(scalarArb, { maxLength: 2 }) });
  // Empty lists (never and always true) are in the reference tests; here they would only thin the matches.
  const siftListArb = fc.array(siftValueArb, { minLength: 1, maxLength: 3 });
  const siftOperatorsArb = fc
    .record({ in: siftListArb, not_in: siftListArb, exists: fc.boolean() }, { requiredKeys: [] })
    .filter((operators) => Object.keys(operators).length > 0);

  const hasPositive = (condition: FilterCondition): boolean => splitFilter({ k: condition }).positive !== undefined;

  const siftFilterArb = (depth: number, top: boolean): fc.Arbitrary<PayloadFilter> => {
    const condition: fc.Arbitrary<FilterCondition> =
      depth <= 1
        ? fc.oneof(siftListArb, siftOperatorsArb)
        : fc.oneof(
            { weight: 1, arbitrary: siftListArb },
            { weight: 2, arbitrary: siftOperatorsArb },
            { weight: 2, arbitrary: siftFilterArb(depth - 1, false) },
          );
    return fc.array(fc.tuple(fc.constantFrom(...SIFT_KEYS), condition), { minLength: 1, maxLength: 3 }).map((entries) => {
      let positives = 0;
      const kept = Object.entries(object(entries) as PayloadFilter).filter(([, c]) => top || !hasPositive(c) || positives++ === 0);
      return object(kept) as PayloadFilter;
    });
  };

  /** The MongoDB query a filter of the subset reads as. */
  function toMongo(filter: PayloadFilter, prefix = '', into: Record<string, unknown> = {}): Record<string, unknown> {
    for (const key of Object.keys(filter)) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      const classified = classifyCondition(filter[key] as FilterCondition);
      if (classified.kind === 'list') into[path] = { $in: classified.values };
      else if (classified.kind === 'nested') toMongo(classified.filter, path, into);
      else {
        const { in: allowed, not_in: excluded, exists } = classified.operators;
        into[path] = {
          ...(allowed === undefined ? {} : { $in: allowed }),
          ...(excluded === undefined ? {} : { $nin: excluded }),
          ...(exists === undefined ? {} : { $exists: exists }),
        };
      }
    }
    return into;
  }

  /** A payload for the filter: its keys, often its values, arrays of objects where it nests. */
  function siftPayloadFor(filter: PayloadFilter, depth: number): fc.Arbitrary<Record<string, unknown>> {
    const own = Object.keys(filter).map((key) => {
      const classified = classifyCondition(filter[key] as FilterCondition);
      let value: fc.Arbitrary<unknown>;
      if (classified.kind === 'nested' && depth > 1) {
        const inner = siftPayloadFor(classified.filter, depth - 1);
        value = fc.oneof(
          { weight: 3, arbitrary: inner },
          {
            weight: 6,
            arbitrary: fc.array(fc.oneof({ weight: 4, arbitrary: inner }, { weight: 1, arbitrary: scalarArb }), { maxLength: 4 }),
          },
          { weight: 1, arbitrary: fc.oneof(scalarArb, fc.constant(null)) },
        );
      } else {
        // Mostly allowed values (else excluded ones), arrays of scalars among them, or anything.
        const allowed =
          classified.kind === 'list' ? classified.values : classified.kind === 'operators' ? (classified.operators.in ?? []) : [];
        const excluded = classified.kind === 'operators' ? (classified.operators.not_in ?? []) : [];
        const named = [...allowed, ...excluded];
        const pick = allowed.length > 0 ? fc.constantFrom(...allowed) : named.length > 0 ? fc.constantFrom(...named) : siftValueArb;
        const scalars = named.filter((v) => typeof v !== 'object');
        const element = scalars.length > 0 ? fc.oneof(fc.constantFrom(...scalars), scalarArb) : scalarArb;
        value = fc.oneof(
          { weight: 6, arbitrary: pick },
          { weight: 1, arbitrary: named.length > 0 ? fc.constantFrom(...named) : scalarArb },
          { weight: 2, arbitrary: fc.array(element, { maxLength: 3 }) },
          { weight: 1, arbitrary: scalarArb },
        );
      }
      return fc.option(
        value.map((v) => [key, v] as const),
        { nil: undefined, freq: 6 },
      );
    });
    return fc.tuple(...own).map((entries) => object(entries.filter((entry) => entry !== undefined)));
  }

  it('the compiled matcher and the reference agree with sift, with both answers common', () => {
    const cases = siftFilterArb(3, true).chain((filter) => fc.tuple(fc.constant(filter), siftPayloadFor(filter, 3)));
    let matched = 0;
    fc.assert(
      fc.property(cases, ([filter, payload]) => {
        const expected = sift(toMongo(filter))(payload);
        expect(compileFilter(filter)(payload)).toBe(expected);
        expect(referenceMatch(filter, payload)).toBe(expected);
        if (expected) matched++;
      }),
      { numRuns: 3_000 },
    );
    expect(matched / 3_000).toBeGreaterThan(0.15);
    expect(matched / 3_000).toBeLessThan(0.85);
  });
});
