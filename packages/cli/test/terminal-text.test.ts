import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { terminalJson, terminalText } from '../src/terminal-text.js';

// What reaches the terminal from the server or an agent, either of which may be hostile (docs/cli.md, "Output").

/** Any C0, DEL or C1 control character but a newline and a tab. */
const FORBIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('terminalText', () => {
  it('shows the window-title and clear-screen sequences instead of running them', () => {
    expect(terminalText('\x1b]0;pwned\x07title\x1b[2J')).toBe('\uFFFD]0;pwned\uFFFDtitle\uFFFD[2J');
    expect(terminalText('\x9b2J \x9d0;x\x9c \r\x7f')).toBe('\uFFFD2J \uFFFD0;x\uFFFD \uFFFD\uFFFD');
  });

  it('keeps newlines and tabs', () => {
    expect(terminalText('a\n\tb\n')).toBe('a\n\tb\n');
  });

  it('property: no C0 or C1 control is left but \\n and \\t; text without them is unchanged', () => {
    const anyText = fc.string({
      unit: fc.oneof(
        fc.integer({ min: 0, max: 0x2ff }).map((c) => String.fromCharCode(c)),
        fc.constantFrom('\x1b', '\x9b', '\n', '\t', '🚀', 'デ'),
      ),
    });
    fc.assert(
      fc.property(anyText, (text) => {
        const shown = terminalText(text);
        expect(FORBIDDEN.test(shown)).toBe(false);
        // Only controls change, each into one U+FFFD: the length and everything else stay.
        expect(shown.length).toBe(text.length);
        for (let i = 0; i < text.length; i++) {
          if (!FORBIDDEN.test(text[i] as string)) expect(shown[i]).toBe(text[i]);
        }
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        fc.pre(!FORBIDDEN.test(text));
        expect(terminalText(text)).toBe(text);
      }),
    );
  });
});

describe('terminalJson', () => {
  it('is the same JSON, with DEL and C1 escaped as JSON escapes C0', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.string({ unit: fc.integer({ min: 0, max: 0xff }).map((c) => String.fromCharCode(c)) }),
        (value, text) => {
          for (const shown of [terminalJson({ value, text }), terminalJson([text], 2)]) {
            expect(FORBIDDEN.test(shown)).toBe(false);
          }
          expect(JSON.parse(terminalJson({ value, text }))).toEqual(JSON.parse(JSON.stringify({ value, text })));
        },
      ),
    );
  });
});
