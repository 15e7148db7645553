import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseInParts, piecedText } from '../src/http/json-parse-in-parts.js';
import { createSpanTracker } from '../src/http/json-spans.js';
import { createJsonTextScan } from '../src/http/json-text-scan.js';

// A large body is parsed a part at a time (http/json-parse-in-parts.ts, docs/run-api.md, "Sizes
// first"): whatever the text and wherever it was cut into pieces, the value must be JSON.parse's,
// and a text JSON.parse refuses must be refused. Parts here are a few characters long, so that
// small texts have many of them.

const turn = () => Promise.resolve();

async function inParts(text: string, at: number[], partChars: number): Promise<{ value: unknown } | { refused: string }> {
  const points = [...new Set(at.map((f) => Math.floor(f * text.length)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const p of points) {
    pieces.push(text.slice(from, p));
    from = p;
  }
  pieces.push(text.slice(from));
  const scan = createJsonTextScan(1000, undefined, createSpanTracker(partChars));
  for (const piece of pieces) scan.feed(piece);
  const { spans } = scan.result();
  if (spans?.unfit) return { refused: spans.unfit };
  try {
    return { value: await parseInParts(piecedText(pieces), spans?.roots ?? [], turn) };
  } catch (error) {
    expect(error).toBeInstanceOf(SyntaxError);
    return { refused: (error as Error).message };
  }
}

const wholeParse = (text: string): { value: unknown } | undefined => {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
};

const values = fc.jsonValue({ maxDepth: 5 });
const texts = fc.oneof(
  values.map((v) => JSON.stringify(v)),
  values.map((v) => JSON.stringify(v, null, 2)),
  // Escapes of every kind, and characters outside the BMP, raw and escaped.
  fc
    .array(fc.constantFrom('a', '\\"', '\\\\', '\\u0041', '\\ud83d\\ude00', '😀', 'é', '\\n', '\\/'), { maxLength: 40 })
    .map((parts) => `{"s":"${parts.join('')}","t":["${parts.reverse().join('')}"]}`),
  // Near JSON: cut short, a character changed, brackets mixed up.
  fc.tuple(values, fc.nat(), fc.constantFrom('', ',', ']', '}', '"', '\\', '\n', ' ', 'x', '[', '{')).map(([v, n, c]) => {
    const t = JSON.stringify(v);
    const at = n % (t.length + 1);
    return t.slice(0, at) + c + t.slice(at + (n % 2));
  }),
  fc.array(fc.constantFrom('[', ']', '{', '}', '"a"', ',', ':', '1', ' '), { maxLength: 30 }).map((a) => a.join('')),
);

describe('parseInParts', () => {
  it("gives JSON.parse's value, and refuses what JSON.parse refuses, wherever the text is cut", async () => {
    await fc.assert(
      fc.asyncProperty(
        texts,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 5 }),
        fc.integer({ min: 1, max: 12 }),
        async (text, at, partChars) => {
          const expected = wholeParse(text);
          const got = await inParts(text, at, partChars);
          if (expected === undefined) expect(got).toHaveProperty('refused');
          else if ('refused' in got) expect(got.refused).toMatch(/has a key longer than/);
          else expect(got.value).toEqual(expected.value);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('keeps a `__proto__` key as a key, as JSON.parse does', async () => {
    const text = '{"__proto__":{"polluted":true},"a":[1,2,3,4,5,6,7,8,9,10,11,12],"b":"xxxxxxxxxxxxxxxxxxxxxxxxxxx"}';
    const got = (await inParts(text, [0.5], 12)) as { value: Record<string, unknown> };
    expect(Object.getPrototypeOf(got.value)).toBe(Object.prototype);
    expect(Object.keys(got.value)).toEqual(['__proto__', 'a', 'b']);
    expect(got.value).toEqual(JSON.parse(text));
  });

  it('refuses a long key, which no schema takes, rather than parse it whole', async () => {
    expect(await inParts(`{"${'k'.repeat(40)}":1}`, [], 8)).toEqual({ refused: 'the request body has a key longer than 8 characters' });
  });
});
