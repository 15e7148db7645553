import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundedLines, CUT_MARK } from '../src/bounded-lines.js';

const collect = (maxChars: number, chunks: string[]) => {
  const lines: string[] = [];
  const splitter = boundedLines(maxChars, (line) => lines.push(line));
  for (const chunk of chunks) splitter.write(chunk);
  splitter.end();
  return lines;
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
          const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
          const chunks = [0, ...points, text.length].slice(1).map((end, i, all) => text.slice(i === 0 ? 0 : (all[i - 1] as number), end));
          const expected = text === '' ? [] : text.split('\n');
          expect(collect(20, chunks.length > 0 ? chunks : [text])).toEqual(expected.at(-1) === '' ? expected.slice(0, -1) : expected);
        },
      ),
    );
  });
});
