import { wellFormedText } from '../models/text.js';

/**
 * Text every store can keep. JavaScript strings may hold U+0000 and unpaired surrogates;
 * PostgreSQL's `text` and `jsonb` refuse both (and a JSON encoder writes a lone surrogate as a
 * `\udXXX` escape that `jsonb` rejects). Agent output is untrusted and may carry either, so what
 * an executor hands the worker goes through here first (worker/agent-text.ts): each such code
 * unit becomes U+FFFD, the replacement character, and a valid surrogate pair stays as it is
 * (`wellFormedText` in models/text.ts, beside the rule requests are refused by; docs/executors.md,
 * "Text a store cannot keep"). This is the walk of a JSON value. Pure ECMAScript, no Node built-ins.
 */

/** The result of cleaning a value: the value to store, and whether anything in it was replaced. */
export interface WellFormed<T> {
  value: T;
  altered: boolean;
}

/** How deep a JSON value is walked; anything deeper is replaced by this marker (an agent's artifact is not that deep). */
export const MAX_JSON_DEPTH = 64;
const TOO_DEEP = '[too deep]';

/**
 * A JSON value (an artifact's data) with every string in it, keys included, made well formed.
 * Iterative, so a deep value costs no stack; containers nested past `MAX_JSON_DEPTH` are
 * replaced by the string "[too deep]" (and count as altered). Values that are not strings,
 * arrays or plain objects are kept as they are (a store serialises them as JSON does).
 * A value with nothing to replace is returned as it is, not copied.
 */
export function wellFormedJson(value: unknown): WellFormed<unknown> {
  if (typeof value === 'string') {
    const text = wellFormedText(value);
    return { value: text, altered: text !== value };
  }
  if (!isContainer(value) || !needsWork(value)) return { value, altered: false };
  // Copy the whole tree (only trees that need work get here), cleaning strings on the way.
  let altered = false;
  const root: unknown[] = [];
  const stack: { from: unknown; into: Record<string, unknown> | unknown[]; key: string | number; depth: number }[] = [
    { from: value, into: root, key: 0, depth: 0 },
  ];
  while (stack.length > 0) {
    const { from, into, key, depth } = stack.pop() as (typeof stack)[number];
    let out: unknown = from;
    if (typeof from === 'string') {
      out = wellFormedText(from);
      if (out !== from) altered = true;
    } else if (isContainer(from)) {
      if (depth >= MAX_JSON_DEPTH) {
        out = TOO_DEEP;
        altered = true;
      } else if (Array.isArray(from)) {
        const copy: unknown[] = new Array(from.length);
        for (let i = 0; i < from.length; i++) stack.push({ from: from[i], into: copy, key: i, depth: depth + 1 });
        out = copy;
      } else {
        const copy: Record<string, unknown> = {};
        for (const [k, item] of Object.entries(from)) {
          const cleanKey = wellFormedText(k);
          if (cleanKey !== k) altered = true;
          stack.push({ from: item, into: copy, key: cleanKey, depth: depth + 1 });
        }
        out = copy;
      }
    }
    // Defined, not assigned: a key "__proto__" (JSON.parse makes one) stays a key.
    Object.defineProperty(into, key, { value: out, enumerable: true, writable: true, configurable: true });
  }
  return { value: root[0], altered };
}

/** An array or a plain object: what JSON nests. Anything else (a Date, a class) is left to the store's serialiser. */
function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Whether any string in `value` (keys included) has a suspect code unit, or it nests too deep. */
function needsWork(value: Record<string, unknown> | unknown[]): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop() as (typeof stack)[number];
    if (typeof v === 'string') {
      if (wellFormedText(v) !== v) return true;
    } else if (isContainer(v)) {
      if (depth >= MAX_JSON_DEPTH) return true;
      if (Array.isArray(v)) for (const item of v) stack.push({ value: item, depth: depth + 1 });
      else
        for (const [k, item] of Object.entries(v)) {
          if (wellFormedText(k) !== k) return true;
          stack.push({ value: item, depth: depth + 1 });
        }
    }
  }
  return false;
}
