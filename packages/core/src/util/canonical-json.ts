import stableStringify from 'fast-json-stable-stringify';

/**
 * Canonical JSON: keys sorted (in code-unit order) at every depth, so equal values print, and
 * hash, equally. The text is exactly fast-json-stable-stringify's, which defined it first and
 * whose output is already stored in identities and idempotency fingerprints: numbers as `'' + n`
 * (`-0` as `0`), non-finite numbers as `null`, `undefined` and functions left out of objects and
 * `null` in arrays, `toJSON` honoured.
 *
 * Plain data (what JSON.parse builds) is printed here, about 1.6x faster than the library on a
 * webhook body (bench/README.md, "What was tried"): its objects are put in key order (most
 * already are, below some level, and are used as they are) and JSON.stringify prints the result,
 * with the nesting bounded on the way, so no separate walk checks it first; the few objects no
 * object can hold in sorted order are joined by hand. Anything else (a `toJSON`, a boxed value, a
 * bigint or symbol, nesting past the bound) goes back to the library, or to the caller, unchanged.
 */

/** Answered by {@link plainCanonicalJson} when the value nests deeper than its bound. */
export const TOO_DEEP: unique symbol = Symbol('too deep');
/** Answered by {@link plainCanonicalJson} for a value that is not plain data (see above). */
export const NOT_PLAIN: unique symbol = Symbol('not plain');

/** Thrown inside the walk, caught at its top: which of the two ended it. */
class Stop {
  constructor(readonly reason: typeof TOO_DEEP | typeof NOT_PLAIN) {}
}
const tooDeep = new Stop(TOO_DEEP);
const notPlain = new Stop(NOT_PLAIN);

/**
 * The canonical JSON of plain data whose arrays and objects nest at most `maxDepth` levels (a
 * top-level container is level 1), or why not: `TOO_DEEP` as soon as a container sits deeper
 * (a cycle does too, so the walk always ends), `NOT_PLAIN` on a value that has a `toJSON` or is a
 * bigint or symbol. `undefined` for `undefined` or a function, as the library answers.
 */
export function plainCanonicalJson(value: unknown, maxDepth: number): string | undefined | typeof TOO_DEEP | typeof NOT_PLAIN {
  try {
    try {
      // Mostly: the value with its objects' keys put in order, printed by JSON.stringify (native,
      // about twice as fast as joining the text here), which prints plain data as the library does.
      return JSON.stringify(inKeyOrder(value, maxDepth));
    } catch (error) {
      if (error !== unordered) throw error;
      return print(value, maxDepth);
    }
  } catch (error) {
    if (error instanceof Stop) return error.reason;
    throw error;
  }
}

/** Canonical JSON of any value, exactly as fast-json-stable-stringify prints it (`undefined` for `undefined`). */
export function canonicalJson(value: unknown): string {
  const text = plainCanonicalJson(value, FAST_DEPTH);
  return typeof text === 'symbol' ? stableStringify(value) : (text as string);
}

/** Deeper than this, `canonicalJson` leaves the value to the library (which also tells a cycle apart). */
const FAST_DEPTH = 256;

/** Thrown by `inKeyOrder` for an object whose keys no object can hold in sorted order (see there). */
const unordered = new Stop(NOT_PLAIN);

/**
 * `node`, or a copy of it, whose every object has its keys in sorted order, so JSON.stringify
 * prints them so; the same checks as `print`. Objects already in order (and all below them) are
 * the very objects given. An object cannot hold keys in sorted order when one is an array index
 * out of place ("10" before "9": index keys always come first, in numeric order), nor can an
 * assignment make a `__proto__` key: those throw `unordered`, for `print` to join the text.
 */
function inKeyOrder(node: unknown, left: number): unknown {
  if (typeof node !== 'object' || node === null) {
    if (typeof node === 'bigint' || typeof node === 'symbol') throw notPlain;
    if (typeof node === 'function' && typeof (node as { toJSON?: unknown }).toJSON === 'function') throw notPlain;
    return node;
  }
  if (left === 0) throw tooDeep;
  if (typeof (node as { toJSON?: unknown }).toJSON === 'function') throw notPlain;
  if (Array.isArray(node)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < node.length; i++) {
      const item = node[i];
      const ordered = inKeyOrder(item, left - 1);
      if (ordered === item) continue;
      out ??= node.slice();
      out[i] = ordered;
    }
    return out ?? node;
  }
  // A boxed primitive, a Map, a class instance: JSON.stringify and the library part ways there.
  const proto = Object.getPrototypeOf(node);
  if (proto !== Object.prototype && proto !== null) throw notPlain;
  const record = node as Record<string, unknown>;
  const keys = Object.keys(record);
  let sorted = true;
  for (let i = 1; i < keys.length; i++) {
    if ((keys[i - 1] as string) > (keys[i] as string)) {
      sorted = false;
      break;
    }
  }
  if (sorted) {
    let out: Record<string, unknown> | undefined;
    for (const key of keys) {
      const value = record[key];
      const ordered = inKeyOrder(value, left - 1);
      if (ordered === value) continue;
      if (key === '__proto__') throw unordered;
      out ??= { ...record };
      out[key] = ordered;
    }
    return out ?? node;
  }
  keys.sort();
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    if (key === '__proto__') throw unordered;
    out[key] = inKeyOrder(record[key], left - 1);
  }
  const held = Object.keys(out);
  for (let i = 1; i < held.length; i++) if ((held[i - 1] as string) > (held[i] as string)) throw unordered;
  return out;
}

/** `left` levels may still be opened below this one. */
function print(node: unknown, left: number): string | undefined {
  switch (typeof node) {
    case 'string':
      return quoted(node);
    case 'number':
      return Number.isFinite(node) ? `${node}` : 'null';
    case 'boolean':
      return node ? 'true' : 'false';
    case 'undefined':
      return undefined;
    case 'object':
      break;
    default:
      // A function prints as nothing, unless it has a toJSON; bigint and symbol are the library's.
      if (typeof node === 'function' && typeof (node as { toJSON?: unknown }).toJSON !== 'function') return undefined;
      throw notPlain;
  }
  if (node === null) return 'null';
  if (left === 0) throw tooDeep;
  if (typeof (node as { toJSON?: unknown }).toJSON === 'function') throw notPlain;
  if (Array.isArray(node)) {
    let out = '[';
    for (let i = 0; i < node.length; i++) {
      if (i > 0) out += ',';
      out += print(node[i], left - 1) ?? 'null';
    }
    return `${out}]`;
  }
  const keys = Object.keys(node).sort();
  let out = '';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const value = print((node as Record<string, unknown>)[key], left - 1);
    if (value === undefined) continue;
    if (out !== '') out += ',';
    out += `${JSON.stringify(key)}:${value}`;
  }
  return `{${out}}`;
}

/**
 * A string as JSON.stringify prints it. A long one without a character it escapes (`"`, `\\`, a
 * control character, a surrogate) is only quoted: the test is about twice as fast as the printing
 * on Node 20, and the long strings of a webhook body (a description, a padded field) mostly pass.
 */
function quoted(text: string): string {
  return text.length >= 64 && !ESCAPED.test(text) ? `"${text}"` : JSON.stringify(text);
}

/** What JSON.stringify escapes; any surrogate (even paired, which it leaves) goes the slow way too. */
const ESCAPED = /["\\\x00-\x1f]|[\ud800-\udfff]/;
