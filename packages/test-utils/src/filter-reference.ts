import stableStringify from 'fast-json-stable-stringify';

/**
 * The filter rules (docs/filters.md, "The three shapes of a key" and "Exact semantics") written out
 * as plainly as possible, to check the compiled matcher against (the property tests) and to measure
 * it against (bench/filter.ts). No speed, no cleverness: every rule is one line that reads like
 * those tables. It expects a filter `parseFilter` accepted and a JSON payload.
 */

type Json = unknown;
type Filter = Record<string, Json>;

const OPERATORS = ['in', 'not_in', 'exists'];

/** "Values compare by JSON deep equality (numbers by value)": equal canonical JSON. */
const jsonEqual = (a: Json, b: Json): boolean => stableStringify(a) === stableStringify(b);

const isObject = (value: Json): value is Record<string, Json> => typeof value === 'object' && value !== null && !Array.isArray(value);

const isOneOf = (value: Json, list: Json[]): boolean => list.some((item) => jsonEqual(item, value));

/** "A filter is a JSON object; every key must match." */
export function referenceMatch(filter: Filter, payload: Json): boolean {
  // "`{}` and no filter match everything."
  if (Object.keys(filter).length === 0) return true;
  // "A non-object payload matches only the empty filter."
  if (!isObject(payload)) return false;
  // "Only own properties are read."
  return Object.keys(filter).every((key) => {
    const present = Object.hasOwn(payload, key);
    return conditionHolds(filter[key], present, present ? payload[key] : undefined);
  });
}

function conditionHolds(condition: Json, present: boolean, value: Json): boolean {
  // "A key's value is an array of allowed values (same as { in: [...] })".
  if (Array.isArray(condition)) return inHolds(condition, present, value);
  const object = condition as Filter;
  const keys = Object.keys(object);
  // "an operator object (in, not_in, exists; several operators in one object must all hold)"
  if (keys.some((key) => OPERATORS.includes(key))) {
    return keys.every((op) => {
      if (op === 'in') return inHolds(object.in as Json[], present, value);
      if (op === 'not_in') return notInHolds(object.not_in as Json[], present, value);
      return existsHolds(object.exists as boolean, present);
    });
  }
  // "or a plain object without operator keys, which filters the nested object".
  // A nested filter without conditions holds (as `{}` does at the top).
  if (keys.length === 0) return true;
  if (!present) return false;
  // "a nested filter holds when any element object matches it"
  if (Array.isArray(value)) return value.some((element) => isObject(element) && referenceMatch(object, element));
  return referenceMatch(object, value);
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

/** "`exists: false` holds" on a missing key; "`null` is a present value". */
function existsHolds(exists: boolean, present: boolean): boolean {
  return exists === present;
}
