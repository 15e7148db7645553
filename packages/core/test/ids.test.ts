import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toHex } from '../src/util/hash.js';
import { base64UrlDecode, base64UrlEncode, newId, newOrderedId } from '../src/util/ids.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newId', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('makes distinct version 4 UUIDs across several refills of its 256-id pool', () => {
    const ids = Array.from({ length: 2_000 }, newId);
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('sets the version and variant bits whatever the random bytes, and draws once per 256 ids', () => {
    let fill = 0xff;
    const draw = vi.spyOn(globalThis.crypto, 'getRandomValues').mockImplementation(<T extends ArrayBufferView | null>(array: T): T => {
      (array as unknown as Uint8Array).fill(fill);
      return array;
    });
    // The pool may be part used by earlier ids: spend it until the next draw, which is all 0xff.
    for (let i = 0; i <= 256 && draw.mock.calls.length === 0; i++) newId();
    expect(draw).toHaveBeenCalledTimes(1);
    const ones = Array.from({ length: 255 }, newId);
    expect(new Set(ones)).toEqual(new Set(['ffffffff-ffff-4fff-bfff-ffffffffffff']));
    expect(draw).toHaveBeenCalledTimes(1);
    // The 257th id needs a new draw: all zeros this time.
    fill = 0x00;
    const zeros = Array.from({ length: 256 }, newId);
    expect(new Set(zeros)).toEqual(new Set(['00000000-0000-4000-8000-000000000000']));
    expect(draw).toHaveBeenCalledTimes(2);
  });
});

describe('newOrderedId', () => {
  const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it('makes version 7 UUIDs, each greater than the one before, within a millisecond and past 4,096 in one', () => {
    const ids = Array.from({ length: 10_000 }, () => newOrderedId(1_800_000_000_000));
    for (const id of ids) expect(id).toMatch(UUID_V7);
    for (let i = 1; i < ids.length; i++) expect((ids[i] as string) > (ids[i - 1] as string)).toBe(true);
  });

  it('keeps growing when the clock goes back, and starts with the time it is given', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 }), { minLength: 2, maxLength: 50 }), (times) => {
        const ids = times.map((t) => newOrderedId(t));
        for (let i = 1; i < ids.length; i++) expect((ids[i] as string) > (ids[i - 1] as string)).toBe(true);
      }),
    );
    const later = 4_000_000_000_000;
    expect(newOrderedId(later).replace('-', '').slice(0, 12)).toBe(later.toString(16).padStart(12, '0'));
  });
});

describe('toHex', () => {
  const nodeHex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');

  it('is the lowercase hex Node gives, for byte arrays of any size', () => {
    // size 'max': lengths spread over the whole range, past the 4,096-byte (8,192-code) slices.
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 20_000, size: 'max' }), (bytes) => {
        expect(toHex(bytes)).toBe(nodeHex(bytes));
      }),
      { numRuns: 50 },
    );
  });

  it('is exact at the slice boundaries and for the empty array', () => {
    expect(toHex(new Uint8Array(0))).toBe('');
    for (const length of [1, 4_095, 4_096, 4_097, 8_192, 8_193, 20_000]) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 37 + 11) & 0xff);
      const hex = toHex(bytes);
      expect(hex).toHaveLength(2 * length);
      expect(hex).toBe(nodeHex(bytes));
    }
  });

  it('reads a view, not its whole buffer', () => {
    const view = new Uint8Array([0x00, 0xab, 0xcd, 0xef, 0x00]).subarray(1, 4);
    expect(toHex(view)).toBe('abcdef');
  });
});

describe('base64Url', () => {
  it('encodes as unpadded base64url, as Node does, and decodes back', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const text = base64UrlEncode(bytes);
        expect(text).toBe(Buffer.from(bytes).toString('base64url'));
        expect(text).toMatch(/^[A-Za-z0-9_-]*$/);
        expect(base64UrlDecode(text)).toEqual(bytes);
      }),
    );
  });

  it('refuses text outside the base64url alphabet and impossible lengths', () => {
    expect(base64UrlDecode('')).toEqual(new Uint8Array(0));
    expect(base64UrlDecode('-_8')).toEqual(new Uint8Array([0xfb, 0xff]));
    for (const bad of ['+/8', 'AA==', 'AA AA', 'A', 'AAAAA', 'é']) expect(base64UrlDecode(bad)).toBeUndefined();
  });
});
