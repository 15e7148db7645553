import * as v from 'valibot';

/**
 * Text limits count Unicode characters (code points), as a user counts them, not the UTF-16 units
 * of `String#length`: an emoji such as 😀 is one character, though two units (docs/run-api.md).
 */

/** The number of code points in `text`: its UTF-16 length less one per surrogate pair. */
export function codePointLength(text: string): number {
  let pairs = 0;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        pairs++;
        i++;
      }
    }
  }
  return text.length - pairs;
}

/**
 * At most `max` characters (code points). The UTF-16 length decides alone when it is within, or
 * over twice `max` (a code point is at most two units), so only text near the limit is counted.
 */
export const maxChars = (max: number) =>
  v.check(
    (s: string) => s.length <= max || (s.length <= 2 * max && codePointLength(s) <= max),
    `at most ${max.toLocaleString('en-US')} characters`,
  );
