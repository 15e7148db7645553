import { toolSummaryText } from '@agentrun/core/api';
import { truncate } from './output.js';
import { terminalText } from './terminal-text.js';

/**
 * A run's tool calls and results as one line each for `--follow` (docs/cli.md, "`run`: start a
 * run"): `→ Bash  ls -la`, then `← Bash  ok: total 24 (+4 lines)` or `← Read  error: …`. Each
 * line is cut to `width` columns as a terminal shows them; the whole input and output are in the
 * event, which `--json` prints as it is.
 */

/** `→ name  what it was asked`; undefined when the data is not a tool call's. */
export function toolCallLine(data: Record<string, unknown>, width: number): string | undefined {
  if (typeof data.call_id !== 'string' || typeof data.name !== 'string') return undefined;
  const { first, more } = firstLine(toolSummaryText(data.name, data.input, data.input_truncated === true));
  return fit(`→ ${data.name}  ${first}${more > 0 ? ' …' : ''}`, '', width);
}

/**
 * `← name  ok: first line (+N lines)` or `error: …`; the name is the result's, or its call's
 * (`callName`), or `tool`. Undefined when the data is not a tool result's.
 */
export function toolResultLine(data: Record<string, unknown>, callName: string | undefined, width: number): string | undefined {
  if (typeof data.call_id !== 'string' || typeof data.output !== 'string') return undefined;
  const name = typeof data.name === 'string' ? data.name : (callName ?? 'tool');
  const outcome = data.is_error === true ? 'error' : 'ok';
  const { first, more } = firstLine(data.output);
  const notes = [...(more > 0 ? [`+${more} line${more === 1 ? '' : 's'}`] : []), ...(data.truncated === true ? ['truncated'] : [])];
  const suffix = notes.length > 0 ? ` (${notes.join(', ')})` : '';
  if (first === '') return fit(`← ${name}  ${outcome} (no output)`, '', width);
  return fit(`← ${name}  ${outcome}: ${first}`, suffix, width);
}

/** The first line with text and how many lines follow it (trailing blank lines not counted). */
function firstLine(text: string): { first: string; more: number } {
  const lines = text.replace(/\s+$/, '').split(/\r?\n/);
  const index = lines.findIndex((line) => line.trim() !== '');
  if (index === -1) return { first: '', more: 0 };
  return { first: (lines[index] as string).trim(), more: lines.length - index - 1 };
}

/**
 * `text` then `suffix` in `width` columns: the text is cut (marked `…`) so the suffix, which says
 * how much more there is, still shows. Tabs become spaces and control characters `�` first, so
 * the line is measured as the terminal will show it.
 */
function fit(text: string, suffix: string, width: number): string {
  const shown = terminalText(text.replace(/\t/g, ' '));
  return `${truncate(shown, Math.max(width - suffix.length, 20))}${suffix}`;
}
