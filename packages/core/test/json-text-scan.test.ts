import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonDepthExceeds, MAX_JSON_DEPTH, parseJsonBody, parseJsonBodyInSlices, SLICE_BYTES } from '../src/http/body.js';
import { createJsonTextScan } from '../src/http/json-text-scan.js';
import { type JsonBudget, jsonCountsExceed } from '../src/http/json-value-count.js';
import { findUnstorableText } from '../src/models/text.js';

// The one-pass scan that checks a large body a slice at a time (http/json-text-scan.ts) must say
// what the whole-text checks say (jsonDepthExceeds, jsonCountsExceed), wherever the text is cut;
// and the sliced parse must answer as the whole parse does (docs/run-api.md, "Sizes first").

const scanIn = (pieces: string[], maxDepth: number, budget?: JsonBudget) => {
  const scan = createJsonTextScan(maxDepth, budget);
  for (const piece of pieces) scan.feed(piece);
  return scan.result();
};

/** `text` cut at the given fractions of its length. */
const cut = (text: string, at: number[]) => {
  const points = [...new Set(at.map((f) => Math.floor(f * text.length)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const p of points) {
    pieces.push(text.slice(from, p));
    from = p;
  }
  pieces.push(text.slice(from));
  return pieces;
};

/** JSON texts, and near-JSON ones: cut short, or with the scanner's special characters thrown in. */
const texts = fc.oneof(
  fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v)),
  fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v, null, 1)),
  fc.tuple(fc.jsonValue({ maxDepth: 4 }), fc.nat()).map(([v, n]) => {
    const t = JSON.stringify(v);
    return t.slice(0, n % (t.length + 1));
  }),
  fc
    .array(fc.constantFrom('[', ']', '{', '}', '"', '\\', ',', ':', 'u', 'd', '8', '0', 'a', ' '), { maxLength: 60 })
    .map((a) => a.join('')),
  fc
    .array(fc.constantFrom('"\\u0000"', '"\\ud800"', '"\\\\u0000"', '"\\uD83D\\uDE00"', '"a"', ',', '[', ']'), { maxLength: 12 })
    .map((a) => a.join('')),
);
const budgets = fc.record({ values: fc.integer({ min: 1, max: 40 }), items: fc.integer({ min: 1, max: 12 }) });
const fractions = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 });

describe('json-text-scan', () => {
  it('finds the nesting and the counts the whole-text checks find, wherever the text is cut', () => {
    fc.assert(
      fc.property(texts, budgets, fc.integer({ min: 1, max: 8 }), fractions, (text, budget, maxDepth, at) => {
        const result = scanIn(cut(text, at), maxDepth, budget);
        expect(result.tooDeep).toBe(jsonDepthExceeds(text, maxDepth));
        expect(result.over).toEqual(result.tooDeep ? undefined : jsonCountsExceed(text, budget));
      }),
      { numRuns: 2000 },
    );
  });

  it('flags every body whose parsed value holds text no store keeps', () => {
    fc.assert(
      fc.property(texts, fractions, (text, at) => {
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          return;
        }
        if (findUnstorableText(value) !== undefined) expect(scanIn(cut(text, at), MAX_JSON_DEPTH).suspectEscape).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('names the path of an array over the item limit, as the whole-text count does', () => {
    const text = `{"config":{"mcp_servers":{"a b":{"args":[${Array(70).fill(0).join(',')}]}}}}`;
    expect(scanIn(cut(text, [0.3, 0.5, 0.51]), 64, { values: 1e6, items: 64 }).over).toEqual({
      count: 'items',
      path: 'config.mcp_servers.a b.args',
    });
  });
});

/** A body over the slice size: `head`, then `filler` repeated past SLICE_BYTES, then `tail`. */
const large = (head: string, filler: string, tail: string) =>
  `${head}${filler.repeat(Math.ceil((SLICE_BYTES * 1.5) / filler.length))}${tail}`;

const outcome = async (run: () => unknown) => {
  try {
    return { value: await run() };
  } catch (error) {
    return { error: (error as Error).message, errors: (error as { errors?: unknown }).errors };
  }
};

describe('parseJsonBodyInSlices', () => {
  const budget = { values: 1000, items: 64 };
  const cases: [string, Uint8Array][] = [
    ['a long string', new TextEncoder().encode(large('{"prompt":"', 'abc😀é', '"}'))],
    ['escapes', new TextEncoder().encode(large('{"prompt":"', '\\u0041\\"\\\\', '"}'))],
    ['an unpaired surrogate escape at the end', new TextEncoder().encode(large('{"prompt":"', 'abc', '\\ud800"}'))],
    ['a NUL escape', new TextEncoder().encode(large('{"a":["', 'x', '\\u0000"]}'))],
    ['too many items', new TextEncoder().encode(large('{"a":{"b":[', '0,', '0]}}'))],
    ['too many values', new TextEncoder().encode(large('[', '[0,0],', '0]'))],
    ['too deep, after too many items', new TextEncoder().encode(large('[', '0,', `${'['.repeat(70)}${']'.repeat(70)}]`))],
    ['whitespace only', new TextEncoder().encode(' \n'.repeat(SLICE_BYTES))],
    ['not JSON', new TextEncoder().encode(large('{"a":"', 'x', '"'))],
    ['a BOM before the body', new TextEncoder().encode(`\uFEFF${large('"', 'x', '"')}`)],
  ];
  it.each(cases)('answers %s as the whole parse does', async (_, bytes) => {
    expect(bytes.byteLength).toBeGreaterThan(SLICE_BYTES);
    expect(await outcome(() => parseJsonBodyInSlices(bytes, budget))).toEqual(await outcome(() => parseJsonBody(bytes, budget)));
  });

  it('refuses bytes that are not UTF-8, also a character cut at a slice boundary and left unfinished', async () => {
    const emoji = new TextEncoder().encode('😀');
    const split = new Uint8Array(SLICE_BYTES + 8).fill(0x61);
    split.set([0x22], 0);
    split.set(emoji, SLICE_BYTES - 2); // across the boundary: fine
    split.set([0x22], SLICE_BYTES + 7);
    expect(await parseJsonBodyInSlices(split)).toBe(new TextDecoder().decode(split).slice(1, -1));
    const truncated = split.slice(0, SLICE_BYTES + 2);
    truncated.set(emoji.subarray(0, 3), SLICE_BYTES - 1);
    await expect(parseJsonBodyInSlices(truncated)).rejects.toThrow('not valid UTF-8');
  });

  it('lets the event loop turn while it reads', async () => {
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    await parseJsonBodyInSlices(new TextEncoder().encode(large('"', 'x', '"')).slice(0, SLICE_BYTES * 4));
    clearInterval(ticking);
    expect(turns).toBeGreaterThan(0);
  });
});
