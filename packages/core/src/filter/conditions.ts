import { isObjectValue } from './json-equal.js';
import type { ValueListTest } from './value-list.js';

/**
 * The test of one condition against the value found at its key, `undefined` when the key is
 * missing (JSON has no `undefined`, so the two cannot be confused).
 */
export type ValueTest = (value: unknown) => boolean;

/** A test of a whole object against a filter's keys; the caller has checked it is an object. */
export type ObjectTest = (object: Record<string, unknown>) => boolean;

/**
 * `in`: the value is allowed, or it is an array with an allowed element. The whole value is tried
 * first, so a primitive (the common case) costs one lookup. Missing fails: `undefined` is never
 * allowed.
 */
export function inTest(contains: ValueListTest): ValueTest {
  return (value) => contains(value) || (Array.isArray(value) && someElement(value, contains));
}

/** `not_in`: neither the value nor any element of an array value is excluded. Missing passes. */
export function notInTest(contains: ValueListTest): ValueTest {
  return (value) => !contains(value) && !(Array.isArray(value) && someElement(value, contains));
}

const present: ValueTest = (value) => value !== undefined;
const missing: ValueTest = (value) => value === undefined;

/** `exists`: present (`null` included) or, with `false`, missing. */
export const existsTest = (exists: boolean): ValueTest => (exists ? present : missing);

/** A plain loop rather than `Array.prototype.some`: no closure per call on the hot path. */
function someElement(array: readonly unknown[], contains: ValueListTest): boolean {
  for (let i = 0; i < array.length; i++) if (contains(array[i])) return true;
  return false;
}

/**
 * The positive part of a nested filter: the value is an object that matches it, or an array with an
 * element object that matches it. A missing key or any other value fails (an empty nested filter
 * never gets here).
 */
export function nestedTest(matches: ObjectTest): ValueTest {
  return (value) => {
    if (typeof value !== 'object' || value === null) return false;
    if (!Array.isArray(value)) return matches(value as Record<string, unknown>);
    for (let i = 0; i < value.length; i++) {
      const element: unknown = value[i];
      if (isObjectValue(element) && matches(element)) return true;
    }
    return false;
  };
}

/**
 * The negative part of a nested filter (docs/filters.md, "Negative conditions"): the value is an
 * object that passes, or an array whose element objects all pass. Nothing to look into (a missing
 * key, any other value, an empty array) passes, as a missing key passes `not_in`. Exactly the
 * negation of `nestedTest` of the negated object test, so "every" here is "no element fails".
 */
export function everyTest(passes: ObjectTest): ValueTest {
  return (value) => {
    if (typeof value !== 'object' || value === null) return true;
    if (!Array.isArray(value)) return passes(value as Record<string, unknown>);
    for (let i = 0; i < value.length; i++) {
      const element: unknown = value[i];
      if (isObjectValue(element) && !passes(element)) return false;
    }
    return true;
  };
}

/** All of several tests of one value, unrolled for the usual one or two. */
export function allOfValue(tests: readonly ValueTest[]): ValueTest {
  const [a, b] = tests as [ValueTest, ValueTest];
  if (tests.length === 1) return a;
  if (tests.length === 2) return (value) => a(value) && b(value);
  return (value) => {
    for (let i = 0; i < tests.length; i++) if (!(tests[i] as ValueTest)(value)) return false;
    return true;
  };
}

/** All keys of one filter object, unrolled for up to four keys (most filters). */
export function allOfKeys(tests: readonly ObjectTest[]): ObjectTest {
  const [a, b, c, d] = tests as [ObjectTest, ObjectTest, ObjectTest, ObjectTest];
  switch (tests.length) {
    case 1:
      return a;
    case 2:
      return (object) => a(object) && b(object);
    case 3:
      return (object) => a(object) && b(object) && c(object);
    case 4:
      return (object) => a(object) && b(object) && c(object) && d(object);
    default:
      return (object) => {
        for (let i = 0; i < tests.length; i++) if (!(tests[i] as ObjectTest)(object)) return false;
        return true;
      };
  }
}
