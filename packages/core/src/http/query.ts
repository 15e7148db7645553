import { invalidRequest } from '../errors.js';
import { hasLoneSurrogate } from '../models/text.js';

/**
 * The one rule for query strings, on every route that takes one: parameters in `repeatable`
 * become arrays, every other may appear once, and NUL or an unpaired surrogate (which no store
 * can compare) is a 400. The route's valibot schema (a strict object) then refuses unknown
 * parameters and malformed values.
 */
export function queryObject(url: URL, repeatable: ReadonlySet<string> = NONE): Record<string, string | string[]> {
  // No prototype: a parameter named `__proto__` is just an unknown parameter.
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [key, value] of url.searchParams) {
    if (key.includes('\u0000') || value.includes('\u0000')) throw invalidRequest('invalid query: the NUL character is not allowed');
    if (hasLoneSurrogate(key) || hasLoneSurrogate(value)) throw invalidRequest('invalid query: not valid UTF-8 text');
    const seen = out[key];
    if (repeatable.has(key)) out[key] = [...((seen as string[] | undefined) ?? []), value];
    else if (seen !== undefined) throw invalidRequest(`invalid query: ${key} may be given only once`);
    else out[key] = value;
  }
  return out;
}

const NONE: ReadonlySet<string> = new Set();
