import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wellFormedText } from '../src/models/text.js';
import { MAX_JSON_DEPTH, wellFormedJson } from '../src/util/well-formed-text.js';

// What a store could refuse: NUL, or a surrogate that is not half of a pair.
const illFormed = (text: string) => /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
/** ES2024's String.prototype.toWellFormed (every Node the project supports has it; the repo's lib is ES2023): the reference for surrogates. */
const toWellFormed = (text: string) => (text as unknown as { toWellFormed(): string }).toWellFormed();
/** Any sequence of UTF-16 code units: lone surrogates and NULs included, pairs too. */
const anyUnits = fc.string({ unit: 'binary', maxLength: 60 });
const codeUnits = fc
  .array(fc.oneof(fc.constantFrom(0, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xfffd, 0xffff, 0x41), fc.integer({ min: 0, max: 0xffff })), {
    maxLength: 40,
  })
  .map((units) => String.fromCharCode(...units));
/** Text with no NUL and no lone surrogate (any code point above U+0000, astral ones as pairs). */
const valid = fc.string({ unit: 'grapheme-composite', maxLength: 60 }).map((s) => s.replaceAll('\u0000', ''));

describe('wellFormedText', () => {
  it('leaves no NUL and no unpaired surrogate, whatever the code units', () => {
    fc.assert(
      fc.property(fc.oneof(anyUnits, codeUnits), (text) => {
        const out = wellFormedText(text);
        expect(illFormed(out)).toBe(false);
        expect(toWellFormed(out)).toBe(out);
        expect(out.length).toBe(text.length); // one U+FFFD per code unit replaced
        expect(out).toBe(toWellFormed(text).replaceAll('\u0000', '\ufffd'));
      }),
      { numRuns: 2000 },
    );
  });

  it('returns valid text unchanged, and is idempotent', () => {
    fc.assert(
      fc.property(valid, (text) => {
        expect(wellFormedText(text)).toBe(text);
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(fc.oneof(anyUnits, codeUnits), (text) => {
        const once = wellFormedText(text);
        expect(wellFormedText(once)).toBe(once);
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps a pair, replaces each half alone, NUL, and keeps U+FFFF', () => {
    expect(wellFormedText('a\u0000b')).toBe('a\ufffdb');
    expect(wellFormedText('\ud83d\ude00')).toBe('\ud83d\ude00');
    expect(wellFormedText('\ud800')).toBe('\ufffd');
    expect(wellFormedText('x\udc00y')).toBe('x\ufffdy');
    expect(wellFormedText('\ude00\ud83d')).toBe('\ufffd\ufffd'); // the halves in the wrong order
    expect(wellFormedText('\ud83d\ud83d\ude00')).toBe('\ufffd\ud83d\ude00');
    expect(wellFormedText('\uffff')).toBe('\uffff');
  });
});

describe('wellFormedJson', () => {
  const json = fc.jsonValue({ maxDepth: 4 });
  const hostileJson = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.oneof(anyUnits, codeUnits),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      tie('array'),
      tie('object'),
    ),
    array: fc.array(tie('value'), { maxLength: 4 }),
    object: fc.dictionary(fc.oneof(anyUnits, codeUnits), tie('value'), { maxKeys: 4 }),
  })).value;
  const strings = (value: unknown): string[] => {
    if (typeof value === 'string') return [value];
    if (Array.isArray(value)) return value.flatMap(strings);
    if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)]);
    return [];
  };

  it('leaves no ill-formed string, keys included, and says when it altered one', () => {
    fc.assert(
      fc.property(hostileJson, (value) => {
        const { value: out, altered } = wellFormedJson(value);
        expect(strings(out).some(illFormed)).toBe(false);
        expect(altered).toBe(strings(value).some(illFormed));
        expect(wellFormedJson(out)).toEqual({ value: out, altered: false });
      }),
      { numRuns: 1000 },
    );
  });

  it('returns a valid value as it is, the same object', () => {
    fc.assert(
      fc.property(json, (value) => {
        const cleaned = wellFormedJson(value);
        expect(cleaned.altered).toBe(strings(value).some(illFormed));
        if (!cleaned.altered) expect(cleaned.value).toBe(value);
      }),
    );
  });

  it('keeps "__proto__" a key, and cuts a value nested too deep instead of recursing', () => {
    const parsed = JSON.parse('{"__proto__":{"a":"\\u0000"}}');
    const { value } = wellFormedJson(parsed) as { value: Record<string, unknown> };
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(JSON.stringify(value)).toBe('{"__proto__":{"a":"\ufffd"}}');

    let deep: unknown = 'bottom';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const cut = wellFormedJson(deep);
    expect(cut.altered).toBe(true);
    let level = cut.value;
    for (let i = 0; i < MAX_JSON_DEPTH; i++) level = (level as unknown[])[0];
    expect(level).toBe('[too deep]');
  });
});
