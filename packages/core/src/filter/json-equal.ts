import type { JsonValue } from './types.js';

/** A JSON object: not `null`, not an array. Any prototype (the matcher reads own keys only). */
export const isObjectValue = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * JSON deep equality of an allowed value and a candidate from a payload: numbers by value, object
 * keys in any order, own keys only. It walks the allowed value, never deeper, so a payload's depth
 * (or a cycle in a non-JSON value) cannot make it recurse further than the filter does. A key
 * holding `undefined` counts as absent, as it would in the payload's JSON.
 */
export function jsonEqual(allowed: JsonValue, candidate: unknown): boolean {
  if (typeof allowed !== 'object' || allowed === null) return allowed === candidate;
  if (typeof candidate !== 'object' || candidate === null) return false;
  if (Array.isArray(allowed)) {
    if (!Array.isArray(candidate) || candidate.length !== allowed.length) return false;
    for (let i = 0; i < allowed.length; i++) if (!jsonEqual(allowed[i] as JsonValue, candidate[i])) return false;
    return true;
  }
  if (Array.isArray(candidate)) return false;
  const object = allowed as { readonly [key: string]: JsonValue };
  const other = candidate as Record<string, unknown>;
  const keys = Object.keys(object);
  for (const key of keys) {
    if (!Object.hasOwn(other, key) || !jsonEqual(object[key] as JsonValue, other[key])) return false;
  }
  // Every allowed key is in the candidate; equal only if the candidate has no others.
  let count = 0;
  for (const key of Object.keys(other)) if (other[key] !== undefined) count++;
  return count === keys.length;
}
