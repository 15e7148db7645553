import stringWidth from 'string-width';
import { terminalText } from './terminal-text.js';

/**
 * Human output (docs/cli.md, "Output"): tables for lists, aligned `key: value` lines for one
 * item. `--json` bypasses all of this and prints the API's JSON.
 *
 * Every alignment goes through `columns()`, which measures what a terminal shows, not UTF-16
 * units: an East Asian wide character or an emoji takes two columns, a combining mark none, an
 * ANSI escape none (string-width). `.length` and `padEnd` would shift every column after a name
 * such as `デプロイ` or `🚀 deploy`. Cells are measured as they will show: control characters
 * replaced first (terminal-text.ts), so an escape sequence in the API's text is neither run nor
 * measured as zero columns.
 */

interface ColumnsOptions {
  /** Before every line (the plan of `apply` and help's lists are indented). Default none. */
  indent?: string;
  /** Between columns. Default two spaces. */
  gap?: string;
}

/**
 * Rows of cells as lines, each column padded to its widest cell. A row's last non-empty cell is
 * not padded and trailing empty cells are left out, so no line ends in spaces. Cells must be one
 * line each (`cell()` makes them so).
 */
export function columns(cells: readonly (readonly string[])[], options: ColumnsOptions = {}): string[] {
  const { indent = '', gap = '  ' } = options;
  const rows = cells.map((row) => row.map((text) => terminalText(text)));
  const count = Math.max(0, ...rows.map((row) => row.length));
  const widths = Array.from({ length: count }, (_, i) => Math.max(0, ...rows.map((row) => stringWidth(row[i] ?? ''))));
  return rows.map((row) => {
    const shown = row.slice(0, lastNonEmpty(row) + 1);
    if (shown.length === 0) return '';
    const last = shown.length - 1;
    return indent + shown.map((text, i) => (i === last ? text : pad(text, widths[i] ?? 0))).join(gap);
  });
}

/** A list: a header line, then one line per row, columns aligned. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  return columns([headers, ...rows]).join('\n');
}

/** `key: value` lines with the values aligned; absent values are left out. */
export function details(pairs: readonly (readonly [string, unknown])[]): string {
  const shown = pairs.filter(([, value]) => value !== undefined && value !== null && value !== '');
  return columns(
    shown.map(([key, value]) => [`${key}:`, String(value)]),
    { gap: ' ' },
  ).join('\n');
}

/**
 * A cell on one line, cut to `max` columns of display width (whole characters, so never half an
 * emoji). Whitespace runs become one space; other control characters become `�` (terminal-text.ts):
 * the text is the API's data, and an escape sequence in a run's title must not recolour the
 * terminal or move its cursor.
 */
export function cell(value: unknown, max = 60): string {
  if (value === undefined || value === null || value === '') return '-';
  const text = terminalText(String(value).replace(/\s+/g, ' ').trim());
  return truncate(text, max);
}

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** `text` cut to `max` columns of display width, marked `…` when it was. */
export function truncate(text: string, max: number): string {
  if (stringWidth(text) <= max) return text;
  let kept = '';
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const width = stringWidth(segment);
    if (used + width > max - 1) break;
    kept += segment;
    used += width;
  }
  return `${kept}…`;
}

const pad = (text: string, width: number): string => text + ' '.repeat(Math.max(0, width - stringWidth(text)));

function lastNonEmpty(row: readonly string[]): number {
  for (let i = row.length - 1; i >= 0; i--) if (row[i] !== '') return i;
  return -1;
}
