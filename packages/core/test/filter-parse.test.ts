import { describe, expect, it } from 'vitest';
import { AgentRunError } from '../src/errors.js';
import { FILTER_LIMITS } from '../src/filter/limits.js';
import { parseFilter } from '../src/filter/parse.js';

/** The message `parseFilter` throws for `input`, checking it is a 400 `invalid_request`. */
function rejection(input: unknown, path?: string): string {
  try {
    parseFilter(input, path);
  } catch (error) {
    expect(error).toBeInstanceOf(AgentRunError);
    expect((error as AgentRunError).code).toBe('invalid_request');
    expect((error as AgentRunError).status).toBe(400);
    return (error as AgentRunError).message;
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
}

/** `{ k1: { k2: … { kN: leaf } } }`. */
const nest = (levels: number, leaf: unknown): Record<string, unknown> => {
  let filter: unknown = leaf;
  for (let i = levels; i >= 1; i--) filter = { [`k${i}`]: filter };
  return filter as Record<string, unknown>;
};

/** `{ k1: [1], …, kN: [1] }`. */
const flat = (keys: number, condition: unknown = [1]) =>
  Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i + 1}`, condition]));

describe('parseFilter', () => {
  it('accepts the three shapes and returns an equal copy', () => {
    const input = {
      action: ['opened', 'synchronize'],
      pull_request: { base: { ref: { in: ['main'] } }, draft: { not_in: [true], exists: true } },
      labels: { name: [{ a: [1, null] }, 'x'] },
      any: {},
    };
    const parsed = parseFilter(input);
    expect(parsed).toEqual(input);
    expect(parsed).not.toBe(input);
    expect(parsed.action).not.toBe(input.action);
    expect(parseFilter({})).toEqual({});
  });

  it('keeps __proto__ and constructor as own keys of the copy, and never sets a prototype', () => {
    const input = JSON.parse('{"__proto__": {"constructor": ["x"]}, "o": [{"__proto__": {"a": 1}}]}');
    const parsed = parseFilter(input) as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toEqual(['__proto__', 'o']);
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
    expect(JSON.stringify(parsed)).toBe(JSON.stringify(input));
    const value = (parsed.o as unknown[])[0] as object;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
  });

  it('refuses what is not a JSON object at the top', () => {
    for (const input of [null, undefined, [], [1], 'x', 1, true, new Date(), new Map()]) {
      expect(rejection(input)).toBe('payload: must be a JSON object');
    }
    expect(rejection(null, 'triggers.0.filter.payload')).toBe('triggers.0.filter.payload: must be a JSON object');
  });

  it('refuses a scalar or null where an array or object is expected, naming the path', () => {
    expect(rejection({ action: 'opened' })).toBe(
      'payload.action: must be an array of allowed values, an operator object (in, not_in, exists) or a nested filter object',
    );
    expect(rejection({ a: { b: { c: null } } })).toMatch(/^payload\.a\.b\.c: must be an array of allowed values/);
    expect(rejection({ a: { b: 7 } }, 'triggers.2.filter.payload')).toMatch(/^triggers\.2\.filter\.payload\.a\.b: must be an array/);
  });

  it('refuses in and not_in that are not arrays', () => {
    expect(rejection({ action: { in: 'opened' } }, 'filter.payload')).toBe(
      'filter.payload.action.in: must be an array of at most 256 values',
    );
    expect(rejection({ action: { not_in: null } })).toBe('payload.action.not_in: must be an array of at most 256 values');
    expect(rejection({ action: { in: { 0: 'a' } } })).toBe('payload.action.in: must be an array of at most 256 values');
  });

  it('refuses exists that is not a boolean', () => {
    for (const exists of ['true', 1, 0, null, [], {}]) expect(rejection({ a: { exists } })).toBe('payload.a.exists: must be true or false');
    expect(rejection({ a: { in: [1], exists: 'yes' } })).toBe('payload.a.exists: must be true or false');
  });

  it('refuses an object mixing operators and field keys', () => {
    expect(rejection({ pr: { in: ['x'], draft: [false] } })).toBe(
      'payload.pr: mixes operators (in) with the field "draft"; an object holds either operators or nested fields',
    );
    expect(rejection({ a: { b: { nested: {}, exists: true, not_in: [] } } })).toMatch(
      /^payload\.a\.b: mixes operators \(exists, not_in\) with the field "nested"/,
    );
  });

  it('refuses allowed values that are not JSON', () => {
    for (const value of [undefined, Number.NaN, Number.POSITIVE_INFINITY, () => 1, 10n, Symbol('s'), new Date(0)]) {
      expect(rejection({ a: ['ok', value] })).toMatch(/^payload\.a\[1\]: must be a JSON value/);
    }
    expect(rejection({ a: { in: [{ x: [1, undefined] }] } })).toMatch(/^payload\.a\.in\[0\]\.x\[1\]: must be a JSON value/);
    // Holes in an array are undefined.
    const sparse = [1, 2, 3];
    delete sparse[1];
    expect(rejection({ a: sparse })).toMatch(/^payload\.a\[1\]: must be a JSON value/);
  });

  it('quotes keys that are not identifiers in paths', () => {
    expect(rejection({ 'x-github-event': 'push' })).toMatch(/^payload\["x-github-event"\]: /);
    expect(rejection({ a: { 'b.c': 1 } })).toMatch(/^payload\.a\["b\.c"\]: /);
    expect(rejection({ '': 1 })).toMatch(/^payload\[""\]: /);
  });

  describe('limits, exact at the boundary', () => {
    it('depth: 8 levels of fields pass, 9 are refused', () => {
      expect(FILTER_LIMITS.maxDepth).toBe(8);
      expect(() => parseFilter(nest(8, [1]))).not.toThrow();
      expect(() => parseFilter(nest(8, {}))).not.toThrow(); // an empty nested filter adds no level
      expect(rejection(nest(9, [1]))).toBe('payload.k1.k2.k3.k4.k5.k6.k7.k8.k9: the filter nests deeper than 8 levels');
      expect(rejection(nest(8, { k9: { exists: true } }))).toMatch(/^payload\.k1\.k2\.k3\.k4\.k5\.k6\.k7\.k8\.k9: the filter nests deeper/);
    });

    it('depth: an object or array allowed value counts its own nesting', () => {
      expect(() => parseFilter(nest(7, [{ x: 1 }]))).not.toThrow();
      expect(() => parseFilter(nest(7, { in: [[1, 2]] }))).not.toThrow();
      expect(() => parseFilter(nest(8, ['scalar', null]))).not.toThrow();
      expect(rejection(nest(8, [[1]]))).toBe('payload.k1.k2.k3.k4.k5.k6.k7.k8[0]: the filter nests deeper than 8 levels');
      expect(rejection(nest(7, [{ x: { y: 1 } }]))).toBe('payload.k1.k2.k3.k4.k5.k6.k7[0].x: the filter nests deeper than 8 levels');
      expect(() => parseFilter({ a: [{ b: { c: { d: { e: { f: { g: 1 } } } } } }] })).not.toThrow(); // 1 + 7
      // Under a key at level 1, seven nested arrays reach level 8; an eighth is refused.
      expect(() => parseFilter({ a: [[[[[[[[1]]]]]]]] })).not.toThrow();
      expect(rejection({ a: [[[[[[[[[1]]]]]]]]] })).toBe('payload.a[0][0][0][0][0][0][0][0]: the filter nests deeper than 8 levels');
    });

    it('keys: 64 fields in all pass, 65 are refused; operator keys do not count', () => {
      expect(FILTER_LIMITS.maxKeys).toBe(64);
      expect(() => parseFilter(flat(64))).not.toThrow();
      expect(rejection(flat(65))).toBe('payload.k65: the filter has more than 64 keys');
      expect(() => parseFilter(flat(64, { in: [1], not_in: [2], exists: true }))).not.toThrow();
      // Nested keys count with the rest: a (1) + 63 below it = 64.
      expect(() => parseFilter({ a: flat(63) })).not.toThrow();
      expect(rejection({ a: flat(63), b: [1] })).toBe('payload.b: the filter has more than 64 keys');
      expect(rejection({ a: flat(64) })).toBe('payload.a.k64: the filter has more than 64 keys');
      // Keys of object allowed values are values, not fields.
      expect(() => parseFilter({ a: [flat(100)] })).not.toThrow();
    });

    it('values: 256 per list pass, 257 are refused, for bare arrays, in and not_in', () => {
      expect(FILTER_LIMITS.maxValues).toBe(256);
      const values = (n: number) => Array.from({ length: n }, (_, i) => i);
      expect(() => parseFilter({ a: values(256), b: { in: values(256), not_in: values(256) } })).not.toThrow();
      expect(rejection({ a: values(257) })).toBe('payload.a: must be an array of at most 256 values');
      expect(rejection({ a: { in: values(257) } })).toBe('payload.a.in: must be an array of at most 256 values');
      expect(rejection({ a: { not_in: values(257) } })).toBe('payload.a.not_in: must be an array of at most 256 values');
      // An array allowed value is one value, whatever its length.
      expect(() => parseFilter({ a: [values(1000)] })).not.toThrow();
    });

    it('size: 16,384 UTF-8 bytes of JSON pass, 16,385 are refused', () => {
      expect(FILTER_LIMITS.maxBytes).toBe(16_384);
      // {"a":["…"]} is 10 bytes around the string.
      expect(() => parseFilter({ a: ['x'.repeat(16_384 - 10)] })).not.toThrow();
      expect(rejection({ a: ['x'.repeat(16_385 - 10)] })).toBe('payload: the filter is 16385 bytes of JSON; at most 16384 are allowed');
      // Bytes, not characters: é is two bytes, 😀 four.
      expect(() => parseFilter({ a: ['é'.repeat(8187)] })).not.toThrow(); // 10 + 16,374
      expect(rejection({ a: [`${'é'.repeat(8187)}x`] })).toMatch(/^payload: the filter is 16385 bytes/);
      expect(() => parseFilter({ a: [`${'😀'.repeat(4093)}xx`] })).not.toThrow(); // 10 + 16,372 + 2
      expect(rejection({ a: [`${'😀'.repeat(4093)}xxx`] })).toMatch(/^payload: the filter is 16385 bytes/);
      // Escapes count as serialized: "\n" is two bytes.
      expect(() => parseFilter({ a: ['\n'.repeat(8187)] })).not.toThrow();
      expect(rejection({ a: [`${'\n'.repeat(8187)}x`] })).toMatch(/^payload: the filter is 16385 bytes/);
    });
  });
});
