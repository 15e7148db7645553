/**
 * Standard base64 (RFC 4648 §4) for attachment and image `data`: checked by one flat pattern
 * and two looks at the end, and decoded natively. No grouped pattern: `(?:[A-Za-z0-9+/]{4})*`
 * made V8 recurse once per group and overflow its stack on a few MiB. The work is linear in the
 * length and the memory is the decoded bytes, so the size limit can be checked first and cheaply.
 *
 * Accepted is exactly the canonical form every standard encoder writes (Python's
 * `base64.b64encode`, Node's `Buffer#toString('base64')`, `btoa`): length a multiple of 4, the
 * alphabet `A–Z a–z 0–9 + /`, at most two `=` and only at the end, and the unused bits of the last
 * character zero. So one text means one byte string, and what is stored re-encodes to what was sent.
 */

const INVALID = 255;
const PAD = 61; // '='
/** Character code → 6-bit value, or INVALID. */
const VALUES = (() => {
  const table = new Uint8Array(128).fill(INVALID);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < alphabet.length; i++) table[alphabet.charCodeAt(i)] = i;
  return table;
})();

const valueAt = (text: string, i: number): number => {
  const code = text.charCodeAt(i);
  return code < 128 ? (VALUES[code] as number) : INVALID;
};

/** The number of `=` at the end of canonical base64 text (0, 1 or 2). */
const padding = (text: string): number => {
  const n = text.length;
  if (n === 0 || text.charCodeAt(n - 1) !== PAD) return 0;
  return text.charCodeAt(n - 2) === PAD ? 2 : 1;
};

/**
 * The decoded size of `text` when it is canonical standard base64, else `undefined`. One flat
 * pattern, which V8 runs natively (about 0.6 ns a character, a fifth of a loop in JavaScript: a
 * run's five 5 MiB attachments are checked in about 20 ms, docs/run-api.md, "Sizes first"); it
 * cannot backtrack further than the padding. Allocates nothing.
 */
export function base64DecodedLength(text: string): number | undefined {
  const n = text.length;
  if (n % 4 !== 0 || !CANONICAL_CHARS.test(text)) return undefined;
  const pad = padding(text);
  const end = n - pad;
  // The last data character carries 4 (one `=`: 2) unused bits, which must be zero.
  if (pad === 2 && ((valueAt(text, end - 1) as number) & 0x0f) !== 0) return undefined;
  if (pad === 1 && ((valueAt(text, end - 1) as number) & 0x03) !== 0) return undefined;
  return (n / 4) * 3 - pad;
}

/** The alphabet, then at most two `=`; the length and the unused bits are checked beside it. */
const CANONICAL_CHARS = /^[A-Za-z0-9+/]*={0,2}$/;

/** Whether `text` is canonical standard base64. */
export const isBase64 = (text: string): boolean => base64DecodedLength(text) !== undefined;

/**
 * The bytes of canonical standard base64 `text`, or `undefined` when it is not that. Decoded by
 * `atob` (native in every runtime agentrun serves on; lenient, which the check above is not),
 * then copied to bytes: about 1.5 ms a MB, a third of a loop in JavaScript.
 */
export function decodeStandardBase64(text: string): Uint8Array | undefined {
  const size = base64DecodedLength(text);
  return size === undefined ? undefined : decodeCheckedBase64(text, size);
}

/** The `size` bytes of `text`, which `base64DecodedLength` has found canonical and of that size. */
export function decodeCheckedBase64(text: string, size: number): Uint8Array {
  const binary = atob(text);
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = binary.charCodeAt(i);
  return out;
}
