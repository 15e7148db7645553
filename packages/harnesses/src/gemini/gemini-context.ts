/**
 * The run's instructions as `<home>/.gemini/GEMINI.md`, Gemini CLI's global context file: the CLI
 * adds it to its own system prompt (under "Contextual Instructions"), where GEMINI_SYSTEM_MD would
 * replace that prompt, its tool and safety guidance with it.
 *
 * A context file's `@path` (an `@` at the start or after a space, then a letter, `.` or `/`) is an
 * import: the CLI puts the file's content there, or an "Import failed" comment, so `@types/node`
 * or `@someone` would not reach the model as written. Such an `@` gets a word joiner (U+2060,
 * invisible) before it. The CLI leaves `@` in backtick code spans and blocks alone, and so does this.
 */
export function geminiContext(instructions: string): string {
  const code = [...instructions.matchAll(CODE)].map((m) => [m.index, m.index + m[0].length] as const);
  return instructions.replace(IMPORT, (at: string, offset: number) =>
    code.some(([start, end]) => offset >= start && offset < end) ? at : `${WORD_JOINER}${at}`,
  );
}

const WORD_JOINER = '\u2060';
/** What the CLI takes for an import (memoryImportProcessor's findImports). */
const IMPORT = /(?<=^|[ \t\r\n])@(?=[./A-Za-z])/g;
/** What the CLI takes for code, where it imports nothing (findCodeRegions). */
const CODE = /(`+)[\s\S]*?\1/g;
