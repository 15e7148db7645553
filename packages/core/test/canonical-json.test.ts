import fc from 'fast-check';
import stableStringify from 'fast-json-stable-stringify';
import { describe, expect, it } from 'vitest';
import { canonicalJson, NOT_PLAIN, plainCanonicalJson, TOO_DEEP } from '../src/util/canonical-json.js';

/**
 * Canonical JSON (util/canonical-json.ts) prints exactly what fast-json-stable-stringify printed,
 * since identities and idempotency fingerprints already stored are hashes of that text. Runs per
 * CI run: 2,000 (JSON values) + 1,000 (anything) + 500 (long strings) + 1,000 (depth bound) = 4,500.
 */

const nest = (depth: number, leaf: unknown = 1): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { k: value };
  return value;
};

describe('canonicalJson', () => {
  it('prints what fast-json-stable-stringify prints, for every JSON value, parsed or not', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(stableStringify(value));
        expect(canonicalJson(JSON.parse(JSON.stringify(value)))).toBe(stableStringify(JSON.parse(JSON.stringify(value))));
      }),
      { numRuns: 2000 },
    );
  });

  it('prints what the library prints for any value without a cycle (undefined, -0, NaN, functions, Dates, sparse arrays)', () => {
    fc.assert(
      fc.property(fc.anything({ withDate: true, withNullPrototype: true, withSparseArray: true, withBoxedValues: true }), (value) => {
        expect(canonicalJson(value)).toBe(stableStringify(value));
      }),
      { numRuns: 1000 },
    );
    for (const value of [-0, [undefined, () => 1, Number.NaN], { a: undefined, b: () => 1, c: -Infinity }, undefined, new Date(0)]) {
      expect(canonicalJson(value)).toBe(stableStringify(value));
    }
    expect(canonicalJson({ b: 1, a: { toJSON: () => ({ z: 1, y: [2] }) } })).toBe('{"a":{"y":[2],"z":1},"b":1}');
  });

  it('prints long strings as JSON.stringify does, escapes and lone surrogates included', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 60, maxLength: 300, unit: fc.constantFrom('x', '"', '\\', '\n', '\u0000', '\ud800', '\udc00', '😀', 'é') }),
        (text) => {
          expect(canonicalJson(text)).toBe(JSON.stringify(text));
          expect(canonicalJson({ [text]: text })).toBe(stableStringify({ [text]: text }));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('sorts keys in code-unit order, integer-like keys among them', () => {
    expect(canonicalJson({ b: 1, 10: 2, 9: 3, A: 4, é: 5, '': 6 })).toBe('{"":6,"10":2,"9":3,"A":4,"b":1,"é":5}');
  });

  it('prints an own __proto__ key (as JSON.parse makes one) as the library does, sorted or not', () => {
    for (const text of [
      '{"b":1,"__proto__":{"y":1,"x":[2]}}',
      '{"__proto__":{"y":1,"x":2},"a":1}',
      '{"a":{"__proto__":[{"b":1,"a":2}]}}',
    ]) {
      const value = JSON.parse(text);
      expect(canonicalJson(value)).toBe(stableStringify(value));
    }
  });

  it('throws on a cycle, as the library does', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(TypeError);
  });
});

describe('plainCanonicalJson', () => {
  it('answers the text up to the bound and TOO_DEEP one level past it, whatever the containers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 80 }), fc.integer({ min: 0, max: 80 }), (depth, max) => {
        const value = nest(depth);
        expect(plainCanonicalJson(value, max)).toBe(depth > max ? TOO_DEEP : stableStringify(value));
      }),
      { numRuns: 1000 },
    );
  });

  it('answers TOO_DEEP for a cycle and NOT_PLAIN for a toJSON, a bigint or a symbol', () => {
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    expect(plainCanonicalJson(cyclic, 64)).toBe(TOO_DEEP);
    expect(plainCanonicalJson({ a: new Date(0) }, 64)).toBe(NOT_PLAIN);
    expect(plainCanonicalJson([1n], 64)).toBe(NOT_PLAIN);
    expect(plainCanonicalJson({ a: Symbol('s') }, 64)).toBe(NOT_PLAIN);
    expect(plainCanonicalJson(undefined, 64)).toBeUndefined();
  });
});
