/**
 * Human output (docs/cli.md, "Output"): tables for lists, aligned `key: value` lines for one
 * item. `--json` bypasses all of this and prints the API's JSON.
 */

/** A cell on one line, cut to `max` characters. */
export function cell(value: unknown, max = 60): string {
  if (value === undefined || value === null || value === '') return '-';
  const text = String(value).replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Columns padded to their widest cell; the last is not padded, so lines have no trailing spaces. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((text, i) => (i === cells.length - 1 ? text : text.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** `key: value` lines with the values aligned; absent values are left out. */
export function details(pairs: readonly (readonly [string, unknown])[]): string {
  const shown = pairs.filter(([, value]) => value !== undefined && value !== null && value !== '');
  const width = Math.max(0, ...shown.map(([key]) => key.length + 1));
  return shown.map(([key, value]) => `${`${key}:`.padEnd(width)} ${String(value)}`).join('\n');
}
