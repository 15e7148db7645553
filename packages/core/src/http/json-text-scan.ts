import type { JsonSpan, SpanTracker } from './json-spans.js';
import type { JsonBudget, JsonCountOver } from './json-value-count.js';

/**
 * The checks a JSON body's text gets before it is parsed (body.ts), made by one pass that reads
 * the text in pieces, so a large body is checked a slice at a time with the event loop free in
 * between (docs/run-api.md, "Sizes first"): nesting deeper than `maxDepth`; the value and item
 * counts of json-value-count.ts, counted the same way and stopping at the same place; and whether
 * a string holds an escape that may be text no store keeps (`\u0000`, `\uD800`–`\uDFFF`), for
 * which the parsed value is then walked (models/text.ts). Reads every character once, in a
 * plain loop: about 2 ms a MB, which is why only large bodies are read this way.
 */
export interface JsonTextScan {
  /** Reads the next piece of the text. */
  feed(piece: string): void;
  /** What the whole text held; call after the last piece. */
  result(): JsonTextScanResult;
}

interface JsonTextScanResult {
  /** Brackets nest deeper than `maxDepth`. */
  tooDeep: boolean;
  /** The first count over the budget, as `jsonCountsExceed` finds it; undefined when too deep,
   *  which is refused first (body.ts) and stops the scan wherever the piece ends. */
  over: JsonCountOver | undefined;
  /** A `\u` escape of NUL or a surrogate appears in a string. */
  suspectEscape: boolean;
  /** With a span tracker: where the text can be cut (json-spans.ts), or why it cannot. */
  spans?: { roots: JsonSpan[]; unfit: string | undefined };
}

/** Keys longer than this are named `?` in a path (a key that long is refused anyway). */
const MAX_KEY_TEXT = 1024;
const MAX_TRACKED = 64;

export function createJsonTextScan(maxDepth: number, budget: JsonBudget | undefined, spans?: SpanTracker): JsonTextScan {
  // The span tracker while the text may still be parsed: a body over its depth or counts is
  // refused, so where it could be cut no longer matters (and tracking it is most of the scan's cost).
  let track = spans;
  // Where the current piece starts in the whole text, for the span tracker's offsets.
  let base = 0;
  let stringCutFrom = Number.POSITIVE_INFINITY;
  let plain = true;
  let tooDeep = false;
  let suspectEscape = false;
  let over: JsonCountOver | undefined;
  // Nesting, as jsonDepthExceeds and jsonCountsExceed both count it.
  let depth = 0;
  // The counts, as jsonCountsExceed keeps them, stopped once one is over.
  let counting = budget !== undefined;
  let count = 0;
  const commas = new Array<number>(MAX_TRACKED + 1).fill(0);
  const arrays = new Array<boolean>(MAX_TRACKED + 1).fill(false);
  const keys = new Array<string | undefined>(MAX_TRACKED + 1).fill(undefined);
  // The string being read: whether inside one, after a backslash, the hex digits of a `\u`
  // escape so far (-1 when not in one), and its text while short enough to name a key.
  let inString = false;
  let escaped = false;
  let hex = -1;
  // While in a `\u` escape: 1 while its digits so far are zeros, 3 once it is `D8`-`DF`, else 0 (2: a `D` first).
  let hexSuspect = 0;
  let stringText: string | undefined = '';
  let lastString: string | undefined;

  const countOne = () => {
    if (counting && ++count > (budget as JsonBudget).values) {
      over = { count: 'values' };
      counting = false;
      track = undefined;
    }
  };

  function feedString(piece: string, from: number): number {
    let i = from;
    for (; i < piece.length; i++) {
      const c = piece.charCodeAt(i);
      if (base + i >= stringCutFrom && hex < 0 && !escaped && c !== QUOTE) {
        track?.stringCut(base + i);
        stringCutFrom = base + i + (track as SpanTracker).partChars;
      }
      if (c < 0x20) plain = false;
      if (hex >= 0 && isHexDigit(c)) {
        // `\u0000`, or `\uD8`-`\uDF` (a surrogate): digits 1-2 decide, or all four zeros.
        if (hex === 0) hexSuspect = c === 0x30 ? 1 : c === 0x64 || c === 0x44 ? 2 : 0;
        else if (hex === 1) hexSuspect = hexSuspect === 1 && c === 0x30 ? 1 : hexSuspect === 2 && c >= 0x38 ? 3 : 0;
        else if (hexSuspect === 1 && c !== 0x30) hexSuspect = 0;
        if (++hex === 4) {
          if (hexSuspect !== 0) suspectEscape = true;
          hex = -1;
        }
        continue;
      }
      hex = -1;
      if (escaped) {
        escaped = false;
        if (c === 0x75) {
          hex = 0;
          hexSuspect = 0;
        }
      } else if (c === BACKSLASH) {
        escaped = true;
        plain = false;
      } else if (c === QUOTE) {
        if (stringText !== undefined) stringText += piece.slice(from, i);
        inString = false;
        track?.stringClose(base + i, plain);
        stringCutFrom = Number.POSITIVE_INFINITY;
        lastString = stringText === undefined ? undefined : `"${stringText}"`;
        countOne();
        return i;
      }
    }
    if (stringText !== undefined) stringText = stringText.length + i - from > MAX_KEY_TEXT ? undefined : stringText + piece.slice(from, i);
    return i;
  }

  return {
    feed(piece) {
      // Too deep is the first of the scan's answers (body.ts): nothing after it can change that.
      if (tooDeep) return;
      for (let i = 0; i < piece.length; i++) {
        if (inString) {
          i = feedString(piece, i);
          continue;
        }
        const c = piece.charCodeAt(i);
        if (c === QUOTE) {
          inString = true;
          stringText = '';
          plain = true;
          if (track) {
            track.stringOpen(base + i);
            stringCutFrom = base + i + track.partChars;
          }
          i = feedString(piece, i + 1);
        } else if (c === COLON) {
          track?.colon();
          if (counting && depth <= MAX_TRACKED) keys[depth] = lastString;
        } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
          track?.open(base + i, c === OPEN_ARRAY);
          if (++depth > maxDepth) {
            tooDeep = true;
            track = undefined;
          }
          if (counting && depth <= MAX_TRACKED) {
            commas[depth] = 0;
            arrays[depth] = c === OPEN_ARRAY;
            keys[depth] = undefined;
          }
          countOne();
        } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
          track?.close(base + i, c === CLOSE_ARRAY);
          depth--;
        } else if (c === COMMA) {
          track?.comma(base + i);
          if (counting && depth > 0 && depth <= MAX_TRACKED) {
            const n = (commas[depth] ?? 0) + 1;
            commas[depth] = n;
            if (n >= (budget as JsonBudget).items) {
              over = { count: 'items', path: pathTo(depth, commas, arrays, keys) };
              counting = false;
              track = undefined;
              continue;
            }
          }
          countOne();
        }
      }
      base += piece.length;
    },
    result: () => ({ tooDeep, over: tooDeep ? undefined : over, suspectEscape, ...(spans ? { spans: spans.result() } : {}) }),
  };
}

/** The dot path of the container open at `depth`, as json-value-count.ts names it. */
function pathTo(depth: number, commas: number[], arrays: boolean[], keys: (string | undefined)[]): string {
  const parts: string[] = [];
  for (let d = 1; d < depth; d++) parts.push(arrays[d] ? String(commas[d]) : keyName(keys[d]));
  return parts.join('.');
}

const isHexDigit = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

function keyName(text: string | undefined): string {
  if (text === undefined) return '?';
  try {
    return String(JSON.parse(text));
  } catch {
    return '?';
  }
}

const QUOTE = 0x22;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const BACKSLASH = 0x5c;
