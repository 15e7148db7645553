import stableStringify from 'fast-json-stable-stringify';

/**
 * The filter rules (docs/filters.md, "The three shapes of a key", "Negative conditions" and "Exact
 * semantics") written out as plainly as possible, to check the compiled matcher against (the
 * property tests) and to measure it against (bench/filter.ts). No speed, no cleverness: every rule
 * is one line that reads like those tables, and it shares no code with the matcher (which splits
 * nested filters; this collects negative conditions with their paths). It expects a filter
 * `parseFilter` accepted and a JSON payload.
 */

type Json = unknown;
type Filter = Record<string, Json>;

const OPERATORS = ['in', 'not_in', 'exists'];

/** "Values compare by JSON deep equality (numbers by value)": equal canonical JSON. */
const jsonEqual = (a: Json, b: Json): boolean => stableStringify(a) === stableStringify(b);

const isObject = (value: Json): value is Record<string, Json> => typeof value === 'object' && value !== null && !Array.isArray(value);

const isOneOf = (value: Json, list: Json[]): boolean => list.some((item) => jsonEqual(item, value));

/**
 * "A filter is a JSON object; every key must match." Read as two independent halves (docs/filters.md,
 * "Negative conditions"): the positive conditions, with those of one nested filter on one element,
 * and each negative condition on its own, against every value its path reaches.
 */
export function referenceMatch(filter: Filter, payload: Json): boolean {
  // "`{}` and no filter match everything."
  if (Object.keys(filter).length === 0) return true;
  // "A non-object payload matches only the empty filter."
  if (!isObject(payload)) return false;
  return positiveHolds(filter, payload) && negativeLeaves(filter).every((leaf) => negativeHolds(leaf, payload));
}

/** "Only own properties are read." */
const read = (object: Record<string, Json>, key: string): { present: boolean; value: Json } =>
  Object.hasOwn(object, key) ? { present: true, value: object[key] } : { present: false, value: undefined };

const isOperatorObject = (condition: Json): condition is Filter =>
  isObject(condition) && Object.keys(condition).some((key) => OPERATORS.includes(key));

// ---- Positive conditions: `in`, a bare array, `exists: true`, nested filters ----

/** "Positive: `in` (and a bare array), `exists: true`, and `{}` (which holds but needs its parent to be an object)." */
function hasPositive(condition: Json): boolean {
  if (Array.isArray(condition)) return true;
  const object = condition as Filter;
  if (isOperatorObject(object)) return Object.hasOwn(object, 'in') || object.exists === true;
  const keys = Object.keys(object);
  return keys.length === 0 || keys.some((key) => hasPositive(object[key]));
}

/** The positive conditions of `filter` hold on `object`; negative ones are ignored here. */
function positiveHolds(filter: Filter, object: Record<string, Json>): boolean {
  return Object.keys(filter).every((key) => {
    const condition = filter[key];
    if (!hasPositive(condition)) return true;
    const { present, value } = read(object, key);
    // "A key's value is an array of allowed values (same as { in: [...] })".
    if (Array.isArray(condition)) return inHolds(condition, present, value);
    const nested = condition as Filter;
    if (isOperatorObject(nested)) {
      if (Object.hasOwn(nested, 'in') && !inHolds(nested.in as Json[], present, value)) return false;
      return nested.exists !== true || present;
    }
    // "A nested filter without conditions holds (as `{}` does at the top)."
    if (Object.keys(nested).length === 0) return true;
    // "a nested filter holds when one element object meets all its positive conditions"
    if (Array.isArray(value)) return value.some((element) => isObject(element) && positiveHolds(nested, element));
    // "A nested filter on a missing key or a non-object fails."
    return isObject(value) && positiveHolds(nested, value);
  });
}

// ---- Negative conditions: `not_in`, `exists: false` ----

interface NegativeLeaf {
  path: string[];
  notIn?: Json[];
  existsFalse: boolean;
}

/** Every operator object with a negative operator, with the path of keys that leads to it. */
function negativeLeaves(filter: Filter, path: string[] = []): NegativeLeaf[] {
  return Object.keys(filter).flatMap((key): NegativeLeaf[] => {
    const condition = filter[key];
    if (Array.isArray(condition)) return [];
    const object = condition as Filter;
    if (!isOperatorObject(object)) return negativeLeaves(object, [...path, key]);
    const leaf: NegativeLeaf = { path: [...path, key], existsFalse: object.exists === false };
    if (Object.hasOwn(object, 'not_in')) leaf.notIn = object.not_in as Json[];
    return leaf.notIn !== undefined || leaf.existsFalse ? [leaf] : [];
  });
}

/** "Looking through arrays": an object is itself, an array its element objects, anything else nothing. */
const objectsIn = (value: Json): Record<string, Json>[] => {
  if (Array.isArray(value)) return value.filter(isObject);
  return isObject(value) ? [value] : [];
};

/**
 * "A negative condition holds unless some value its path reaches is excluded": follow the path from
 * the payload through objects and the element objects of arrays; a step that reaches nothing
 * (missing, not an object, an empty array) leaves nothing to exclude.
 */
function negativeHolds(leaf: NegativeLeaf, payload: Record<string, Json>): boolean {
  let objects = [payload];
  for (const key of leaf.path.slice(0, -1)) {
    objects = objects.flatMap((object) => {
      const { present, value } = read(object, key);
      return present ? objectsIn(value) : [];
    });
  }
  const last = leaf.path[leaf.path.length - 1] as string;
  return objects.every((object) => {
    const { present, value } = read(object, last);
    if (leaf.notIn !== undefined && !notInHolds(leaf.notIn, present, value)) return false;
    return !leaf.existsFalse || !present;
  });
}

/** "Missing key: `in` fails." "`in` holds when any element is allowed (or the whole array equals an allowed value)." */
function inHolds(allowed: Json[], present: boolean, value: Json): boolean {
  if (!present) return false;
  if (isOneOf(value, allowed)) return true;
  return Array.isArray(value) && value.some((element) => isOneOf(element, allowed));
}

/** "Missing key: `not_in` holds." "`not_in` holds when no element is excluded" (nor the whole array). */
function notInHolds(excluded: Json[], present: boolean, value: Json): boolean {
  if (!present) return true;
  if (isOneOf(value, excluded)) return false;
  return !(Array.isArray(value) && value.some((element) => isOneOf(element, excluded)));
}
