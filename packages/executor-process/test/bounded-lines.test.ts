import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundedLines, CUT_MARK } from '../src/bounded-lines.js';

const collect = (maxChars: number, chunks: string[], only?: { prefix: string; from: number }) => {
  const lines: string[] = [];
  const splitter = boundedLines(maxChars, (line) => lines.push(line));
  chunks.forEach((chunk, i) => {
    if (only?.from === i) splitter.onlyStartingWith(only.prefix);
    splitter.write(chunk);
  });
  if (only?.from === chunks.length) splitter.onlyStartingWith(only.prefix);
  splitter.end();
  return lines;
};

/** `text` cut at the given points (taken modulo its length). */
const cutAt = (text: string, cuts: number[]) => {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const chunks = [0, ...points, text.length].slice(1).map((end, i, all) => text.slice(i === 0 ? 0 : (all[i - 1] as number), end));
  return chunks.length > 0 ? chunks : [text];
};

describe('bounded stdout lines', () => {
  it('splits on newlines across chunks, drops a \\r before them, and keeps a last line without one', () => {
    expect(collect(100, ['a\r\nb', 'c\n', '\nd'])).toEqual(['a', 'bc', '', 'd']);
  });

  it('cuts a line longer than the limit, marks it, and drops the rest up to its newline', () => {
    expect(collect(4, ['abcdefgh', 'ijk\nxy\n'])).toEqual([`abcd${CUT_MARK}`, 'xy']);
    expect(collect(4, ['abcdefgh'])).toEqual([`abcd${CUT_MARK}`]);
  });

  it('agrees with split("\\n") on lines within the limit, however the text is cut into chunks', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ maxLength: 20 }).map((s) => s.replace(/[\r\n]/g, '')),
          { maxLength: 10 },
        ),
        fc.array(fc.nat(), { maxLength: 5 }),
        (lines, cuts) => {
          const text = lines.join('\n');
          const expected = text === '' ? [] : text.split('\n');
          expect(collect(20, cutAt(text, cuts))).toEqual(expected.at(-1) === '' ? expected.slice(0, -1) : expected);
        },
      ),
    );
  });

  it('past onlyStartingWith: exactly the lines that start with the prefix, from the first chunk after it on, however the text is cut', () => {
    fc.assert(
      fc.property(
        // Few letters, so that lines start with the prefix, nearly do, or hold it later, often.
        fc.array(fc.stringMatching(/^[ab{\r]{0,12}$/), { maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.nat(),
        (lines, cuts, from) => {
          const prefix = '{ab';
          const text = lines.join('\n');
          const chunks = cutAt(text, cuts);
          const switchAt = from % (chunks.length + 1);
          // Lines wholly before the switch are all emitted; the one it falls in and those after, only the prefix's.
          const before = chunks.slice(0, switchAt).join('');
          const done = before.lastIndexOf('\n') + 1;
          const strip = (l: string) => (l.endsWith('\r') ? l.slice(0, -1) : l);
          const head =
            done === 0
              ? []
              : before
                  .slice(0, done - 1)
                  .split('\n')
                  .map(strip);
          const rest = text.slice(done);
          const tail = rest === '' ? [] : rest.split('\n').filter((l, i, all) => l.startsWith(prefix) && (i < all.length - 1 || l !== ''));
          expect(collect(12, chunks, { prefix, from: switchAt })).toEqual([...head, ...tail.map(strip)]);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('past onlyStartingWith: a wanted line longer than the limit is cut and marked; the skipped ones never are', () => {
    const chunks = ['x'.repeat(50), '\n{ab', 'cdefghijk\nyyy', 'y\n{abc\n'];
    expect(collect(6, chunks, { prefix: '{ab', from: 0 })).toEqual([`{abcde${CUT_MARK}`, '{abc']);
  });
});
