/** What a route's schema admits of a body's text (models/size-check.ts, `jsonBudget`). */
export interface JsonBudget {
  /** Values in all, counted as below. */
  values: number;
  /** Items of the largest array, or entries of the largest object. */
  items: number;
}

/**
 * Which of the budget's counts a JSON text exceeds, counted before it is parsed: values, one per
 * string, per `[` or `{`, and per comma (so a number, `true`, `false` or `null` counts by its
 * comma); and the items of each array or object, by its commas. JSON.parse costs about 0.1-0.3 µs
 * a value, so a body of small values holds the event loop for as long as its size allows
 * (docs/run-api.md, "Sizes first"); a route refuses what its schema could never accept unparsed.
 *
 * Stops at the first count over. Strings are skipped with `indexOf` (native, so a 7 MB
 * attachment costs what a memory scan does); only the text between strings is read one
 * character at a time. A text that is not JSON is never refused here: JSON.parse says what is
 * wrong with it. Nesting is assumed checked first (body.ts, at most 64 levels); deeper
 * containers' items are not counted.
 */
export function jsonCountsExceed(text: string, budget: JsonBudget): JsonCountOver | undefined {
  let count = 0;
  let depth = 0;
  let lastString = -1;
  // Per level: commas so far, whether it is an array, where its current key starts (for the path).
  const commas = new Array<number>(MAX_TRACKED + 1).fill(0);
  const arrays = new Array<boolean>(MAX_TRACKED + 1).fill(false);
  const keys = new Array<number>(MAX_TRACKED + 1).fill(-1);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end === -1) return undefined;
      lastString = i;
      i = end;
    } else if (c === COLON) {
      if (depth <= MAX_TRACKED) keys[depth] = lastString;
      continue;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth <= MAX_TRACKED) {
        commas[depth] = 0;
        arrays[depth] = c === OPEN_ARRAY;
        keys[depth] = -1;
      }
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
      continue;
    } else if (c === COMMA) {
      if (depth > 0 && depth <= MAX_TRACKED) {
        const n = (commas[depth] ?? 0) + 1;
        commas[depth] = n;
        // n commas make n + 1 items.
        if (n >= budget.items) return { count: 'items', path: pathTo(text, depth, { commas, arrays, keys }) };
      }
    } else continue;
    if (++count > budget.values) return { count: 'values' };
  }
  return undefined;
}

/** Which count is over; for items, the dot path of the array or object, as validation names paths. */
export type JsonCountOver = { count: 'values' } | { count: 'items'; path: string };

const MAX_TRACKED = 64;

/** The dot path of the container open at `depth`: each level's key, or index in an array. */
function pathTo(text: string, depth: number, levels: { commas: number[]; arrays: boolean[]; keys: number[] }): string {
  const parts: string[] = [];
  for (let d = 1; d < depth; d++) parts.push(levels.arrays[d] ? String(levels.commas[d]) : keyAt(text, levels.keys[d] ?? -1));
  return parts.join('.');
}

function keyAt(text: string, start: number): string {
  const end = start < 0 ? -1 : stringEnd(text, start);
  try {
    return end < 0 ? '?' : String(JSON.parse(text.slice(start, end + 1)));
  } catch {
    return '?';
  }
}

/** The index of the quote closing the string opened at `open`, or -1 when it is not closed. */
function stringEnd(text: string, open: number): number {
  for (let quote = text.indexOf('"', open + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return -1;
}

const QUOTE = 0x22;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const BACKSLASH = 0x5c;
