import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { cell, columns, details, table } from '../src/output.js';
import { terminalText } from '../src/terminal-text.js';

// Human output (docs/cli.md, "Output"): columns line up by what a terminal shows, whatever the
// characters: East Asian wide and emoji 2 columns, combining marks 0; an escape sequence is not
// run but shown (ESC as �, terminal-text.ts) and measured as shown.

describe('table', () => {
  it('pads by display width: wide characters, emoji, combining marks, and escapes as shown', () => {
    const rendered = table(
      ['NAME', 'STATE', 'NOTE'],
      [
        ['デプロイ', 'ok', 'wide: 2 columns each'],
        ['e\u0301te\u0301', 'ok', 'combining marks: none'],
        ['🚀 go', '\x1b[32mok\x1b[0m', 'emoji 2, escapes 0'],
        ['plain', 'FAILED', 'ascii'],
      ],
    );
    expect(rendered.split('\n')).toEqual([
      'NAME      STATE        NOTE',
      'デプロイ  ok           wide: 2 columns each',
      'e\u0301te\u0301       ok           combining marks: none',
      '🚀 go     \uFFFD[32mok\uFFFD[0m  emoji 2, escapes 0',
      'plain     FAILED       ascii',
    ]);
  });

  it('ends no line in spaces: the last non-empty cell is not padded, empty cells after it are left out', () => {
    const lines = columns([
      ['a', 'bbbb', 'c'],
      ['aaaa', '', ''],
      ['', '', ''],
    ]);
    expect(lines).toEqual(['a     bbbb  c', 'aaaa', '']);
  });

  it('indents every line; details aligns values after the keys', () => {
    expect(
      columns(
        [
          ['+ webhooks/デプロイ.yaml', 'create'],
          ['= webhooks/ci.yaml', 'unchanged'],
        ],
        { indent: '  ' },
      ),
    ).toEqual(['  + webhooks/デプロイ.yaml  create', '  = webhooks/ci.yaml        unchanged']);
    expect(
      details([
        ['state', 'SUCCEEDED'],
        ['title', 'テスト'],
        ['skill', undefined],
        ['created_at', '2026-01-01'],
      ]),
    ).toBe('state:      SUCCEEDED\ntitle:      テスト\ncreated_at: 2026-01-01');
  });
});

describe('cell', () => {
  it('cuts to a display width, never inside a character, and marks the cut', () => {
    expect(cell('日本語のタイトル', 7)).toBe('日本語…');
    expect(cell('👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧', 4)).toBe('👨‍👩‍👧…');
    expect(cell('abcdef', 6)).toBe('abcdef');
    expect(cell('abcdefg', 6)).toBe('abcde…');
    expect(cell('')).toBe('-');
  });

  it('puts the text on one line and shows control characters as �, so data cannot drive the terminal', () => {
    expect(cell('line one\n\tline two')).toBe('line one line two');
    expect(cell('red\x1b[31mtitle\x07')).toBe('red\uFFFD[31mtitle\uFFFD');
  });
});

describe('properties', () => {
  // Cells as the CLI shows them: any printable graphemes, with wide, emoji, combining and escaped
  // ones made likely; one line each (cell() guarantees that for the API's text).
  const text = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => s.replace(/\s/g, ' ')),
    fc.constantFrom('デプロイ', '🚀', 'e\u0301', '👨‍👩‍👧', '🇫🇷', '\x1b[1mbold\x1b[0m', '한국어', 'ascii', '-', ''),
  );
  const rows = fc
    .integer({ min: 1, max: 5 })
    .chain((width) => fc.array(fc.array(text, { minLength: width, maxLength: width }), { minLength: 1, maxLength: 8 }));

  it('every column starts at the same display column in every row', () => {
    fc.assert(
      fc.property(rows, (table) => {
        const count = table[0]?.length ?? 0;
        // Column j starts where a marker put in its place lands: the same width before it on every line.
        for (let j = 0; j <= count; j++) {
          const lines = columns(table.map((row) => [...row.slice(0, j), '|']));
          const widths = lines.map((line) => stringWidth(line));
          expect(lines.every((line) => line.endsWith('|'))).toBe(true);
          expect(new Set(widths).size).toBe(1);
        }
      }),
    );
  });

  it('a rendered table has equal display width on every line up to its last column', () => {
    const lastCell = text.filter((s) => s !== '');
    fc.assert(
      fc.property(rows, fc.array(lastCell, { minLength: 9, maxLength: 9 }), (body, last) => {
        const withLast = body.map((row, i) => [...row, last[i] as string]);
        const headers = [...(body[0] ?? []).map((_, i) => `COL${i}`), 'LAST'];
        const lines = table(headers, withLast).split('\n');
        const before = lines.map((line, i) => {
          const tail = i === 0 ? 'LAST' : terminalText(withLast[i - 1]?.at(-1) as string);
          expect(line.endsWith(tail)).toBe(true);
          return stringWidth(line) - stringWidth(tail);
        });
        expect(new Set(before).size).toBe(1);
      }),
    );
  });
});
