/**
 * Whether a JSON text holds more than `max` values, counted before it is parsed: one per string,
 * per `[` or `{`, and per comma (so a number, `true`, `false` or `null` counts by its comma).
 * JSON.parse costs about 0.1-0.3 µs a value, so a body of small values holds the event loop for
 * as long as its size allows (docs/run-api.md, "Sizes first"); a route whose schema admits at
 * most `max` values (models/size-check.ts, `valueBudget`) refuses the rest unparsed.
 *
 * Stops at the `max + 1`th value. Strings are skipped with `indexOf` (native, so a 7 MB attachment
 * costs what a memory scan does); only the text between strings is read one character at a
 * time. A text that is not JSON is never refused here: JSON.parse says what is wrong with it.
 */
export function jsonValuesExceed(text: string, max: number): boolean {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end === -1) return false;
      i = end;
    } else if (c !== COMMA && c !== OPEN_ARRAY && c !== OPEN_OBJECT) continue;
    if (++count > max) return true;
  }
  return false;
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
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const BACKSLASH = 0x5c;
