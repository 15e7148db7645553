import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copy } from '../src/copy.js';

/** Every object, array and byte array reachable from `value`, the value itself included. */
function containers(value: unknown, into = new Set<object>()): Set<object> {
  if (typeof value !== 'object' || value === null || into.has(value)) return into;
  into.add(value);
  if (!(value instanceof Uint8Array)) for (const inner of Object.values(value)) containers(inner, into);
  return into;
}

/** Change every container reachable from `value` in place: innermost first, then the container itself. */
function mutateAll(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  if (value instanceof Uint8Array) {
    for (let i = 0; i < value.length; i++) value[i] = (value[i] as number) ^ 0xff;
    return;
  }
  for (const inner of Object.values(value)) mutateAll(inner);
  if (Array.isArray(value)) value.push('mutated');
  else (value as Record<string, unknown>)['mutated by the test'] = true;
}

// Equality is also checked with node's isDeepStrictEqual (prototypes, typed arrays, -0):
// vitest's toStrictEqual reads `.constructor`, which a generated own `constructor` key fools.

/** The value of an own `__proto__` key (read as a data property, never the accessor). */
const ownProto = (value: object): unknown => Object.getOwnPropertyDescriptor(value, '__proto__')?.value;

// Records as a store holds them: JSON values, with byte arrays anywhere a value may go. Plain
// prototypes only, since structuredClone (the reference) drops a null prototype that copy keeps.
// Keys include the names of Object.prototype members, which a careless copy would trip over.
const bytes = fc.uint8Array({ maxLength: 64 });
const key = fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty'));
const record = <T>(value: fc.Arbitrary<T>) => fc.dictionary(key, value, { noNullPrototype: true });
const storedValue = fc.oneof(
  fc.jsonValue(),
  record(fc.oneof(bytes, fc.jsonValue(), fc.array(bytes, { maxLength: 4 }), record(fc.oneof(bytes, fc.jsonValue())))),
  fc.array(record(fc.oneof(bytes, fc.jsonValue())), { maxLength: 4 }),
);

describe('copy', () => {
  it('equals structuredClone of the value, prototypes and byte arrays included', () => {
    fc.assert(
      fc.property(storedValue, (value) => {
        const copied = copy(value);
        const reference = structuredClone(value);
        expect(copied).toEqual(reference);
        expect(isDeepStrictEqual(copied, reference)).toBe(true);
      }),
    );
  });

  it('shares no object, array or byte array with its input', () => {
    fc.assert(
      fc.property(storedValue, (value) => {
        const original = containers(value);
        for (const made of containers(copy(value))) expect(original.has(made)).toBe(false);
      }),
    );
  });

  it('leaves the input unchanged whatever is done to the copy', () => {
    fc.assert(
      fc.property(storedValue, (value) => {
        const before = structuredClone(value);
        mutateAll(copy(value));
        expect(value).toEqual(before);
        expect(isDeepStrictEqual(value, before)).toBe(true);
      }),
    );
  });

  it('keeps an own __proto__ key as a key, without changing the prototype', () => {
    const parsed = JSON.parse('{"__proto__": {"x": 1}, "y": 2}') as Record<string, unknown>;
    const copied = copy(parsed);
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(Object.hasOwn(copied, '__proto__')).toBe(true);
    expect(Object.keys(copied)).toEqual(['__proto__', 'y']);
    // Read as an own data property, not the accessor: a copy, not the parsed object.
    const inner = ownProto(copied);
    expect(inner).toEqual({ x: 1 });
    expect(inner).not.toBe(ownProto(parsed));
    // Nothing leaked onto the prototype chain.
    expect((copied as { x?: unknown }).x).toBeUndefined();
    expect(({} as { x?: unknown }).x).toBeUndefined();
  });

  it('keeps a null prototype, with an own __proto__ key copied as a key', () => {
    const source = Object.assign(Object.create(null) as Record<string, unknown>, { a: { b: [1] } });
    Object.defineProperty(source, '__proto__', { value: { x: 1 }, enumerable: true, writable: true, configurable: true });
    const copied = copy(source);
    expect(Object.getPrototypeOf(copied)).toBeNull();
    expect(Object.keys(copied)).toEqual(['a', '__proto__']);
    expect(copied.a).toEqual({ b: [1] });
    expect(copied.a).not.toBe(source.a);
    expect(ownProto(copied)).toEqual({ x: 1 });
    expect(ownProto(copied)).not.toBe(ownProto(source));
  });

  it('hands other objects, such as a Date, to structuredClone', () => {
    const date = new Date(Date.UTC(2026, 0, 1));
    const copied = copy(date);
    expect(copied).toBeInstanceOf(Date);
    expect(copied).not.toBe(date);
    expect(copied.getTime()).toBe(date.getTime());
    const nested = copy({ at: date, list: [date] });
    expect(nested.at).toEqual(date);
    expect(nested.at).not.toBe(date);
    expect(nested.list[0]).not.toBe(date);
  });

  it('returns primitives as they are', () => {
    for (const value of [0, -0, 1.5, 'text', true, null, undefined, 10n]) expect(Object.is(copy(value), value)).toBe(true);
  });
});
