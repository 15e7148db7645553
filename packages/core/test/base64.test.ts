import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64DecodedLength, decodeStandardBase64, isBase64 } from '../src/models/base64.js';

// Attachment data is checked and decoded by a linear loop (models/base64.ts).
// The reference is Node's Buffer, here in the test only (core has no Node built-ins): Buffer
// decodes leniently, so text is canonical standard base64 exactly when re-encoding what Buffer
// decodes gives the same text back.

const reference = (text: string): Buffer | undefined => {
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
};

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** Characters near the alphabet: padding, base64url, whitespace, a non-ASCII letter, an astral one. */
const NEAR = ['=', '-', '_', ' ', '\n', '.', 'é', '\u{1F600}', '\u0000'];

const encoded = fc.uint8Array({ maxLength: 96 }).map((bytes) => Buffer.from(bytes).toString('base64'));
/** Valid text with one character replaced, inserted or removed: where a validator slips. */
const mutated = fc
  .tuple(encoded, fc.nat(), fc.constantFrom(...ALPHABET, ...NEAR), fc.constantFrom('replace', 'insert', 'delete'))
  .map(([text, at, c, how]) => {
    const i = text.length === 0 ? 0 : at % text.length;
    if (how === 'insert') return text.slice(0, i) + c + text.slice(i);
    if (how === 'delete') return text.slice(0, i) + text.slice(i + 1);
    return text.slice(0, i) + c + text.slice(i + 1);
  });
const anyText = fc.string({ unit: fc.constantFrom(...ALPHABET, ...NEAR), maxLength: 24 });

describe('standard base64 (models/base64.ts) against Node’s Buffer', () => {
  it('accepts exactly the texts Buffer round-trips, and decodes them to the same bytes', () => {
    fc.assert(
      fc.property(fc.oneof(encoded, mutated, anyText), (text) => {
        const expected = reference(text);
        expect(isBase64(text)).toBe(expected !== undefined);
        expect(base64DecodedLength(text)).toBe(expected?.byteLength);
        const decoded = decodeStandardBase64(text);
        expect(decoded === undefined ? undefined : Buffer.from(decoded)).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts what every standard encoder writes and refuses the rest by name', () => {
    expect(decodeStandardBase64('')).toEqual(new Uint8Array());
    expect(decodeStandardBase64('aGVsbG8=')).toEqual(new TextEncoder().encode('hello'));
    expect(decodeStandardBase64('+/+/')).toEqual(new Uint8Array([0xfb, 0xff, 0xbf]));
    for (const bad of ['aGVsbG8', 'aGVsbG9=', 'QR==', '-_-_', 'aGVs bG8=', '=AAA', 'A===', 'AA=A', 'éAAA'])
      expect([bad, isBase64(bad)]).toEqual([bad, false]);
  });

  it('checks and decodes 8 MiB of text without recursion (a grouped pattern overflowed the stack at about 3 MiB)', () => {
    const bytes = new Uint8Array(6 * 1024 * 1024).map((_, i) => i * 31);
    const text = Buffer.from(bytes).toString('base64');
    expect(text.length).toBeGreaterThanOrEqual(8 * 1024 * 1024);
    expect(base64DecodedLength(text)).toBe(bytes.byteLength);
    expect(Buffer.from(decodeStandardBase64(text) as Uint8Array).equals(Buffer.from(bytes))).toBe(true);
    expect(isBase64(`${text.slice(0, -4)}!!!!`)).toBe(false);
  });
});
