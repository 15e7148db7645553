import type { RunEventRecord } from '../store/run-events.js';
import type { Store } from '../store/store.js';
import type { RunRecord } from './record.js';
import { renderedEventReader } from './rendered-events.js';

// The human-readable view of a run's transcript (docs/run-api.md, "The transcript page"), the
// default `session_link`. Every string from the run or its events is escaped: a prompt or an
// agent's output is never markup. A page shows at most `TRANSCRIPT_PAGE_EVENTS` events, linked to
// the pages before and after it, and is produced piece by piece as its reader takes it
// (http/paced-body.ts): a 10,000-event run is never one string in memory.

/** Events on one page: 200 output lines at their 16,384-character cap are about 3.3 MB of text. */
export const TRANSCRIPT_PAGE_EVENTS = 200;
/** Rows are handed on in pieces of about this many characters, not one piece per row. */
const ROWS_PIECE = 16 * 1024;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);

/** One line of text for an event: what a person reading the run wants to see. */
function describe(event: RunEventRecord): string {
  const data = (event.data ?? {}) as Record<string, unknown>;
  switch (event.type) {
    case 'state':
      return `${String(data.from)} → ${String(data.to)}${data.status_message ? `: ${String(data.status_message)}` : ''}`;
    case 'status':
    case 'followup':
      return String(data.message ?? '');
    case 'output':
      return String(data.text ?? '');
    case 'truncated':
      return `The transcript reached its limit of ${String(data.limit)} events; later events were not kept.`;
    default:
      return JSON.stringify(data);
  }
}

const row = (e: RunEventRecord) =>
  `<tr class="${e.type}"><td>${e.id}</td><td><time>${escapeHtml(e.at)}</time></td><td>${e.type}</td><td><pre>${escapeHtml(describe(e))}</pre></td></tr>\n`;

/** Links relative to the page itself (`?after=…`), so they hold wherever agentrun is mounted. */
const link = (after: number, text: string, rel: string) => `<a rel="${rel}" href="?after=${after}">${text}</a>`;

function earlierLinks(after: number): string[] {
  if (after === 0) return [];
  return [link(0, 'First events', 'first'), link(Math.max(0, after - TRANSCRIPT_PAGE_EVENTS), '← Earlier events', 'prev')];
}

const nav = (links: string[]) => (links.length === 0 ? '' : `<nav>${links.join(' · ')}</nav>\n`);

function head(run: RunRecord, after: number): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(run.title)} · agentrun</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse;width:100%}td{border-top:1px solid #ddd;padding:4px 8px;vertical-align:top}pre{margin:0;white-space:pre-wrap;word-break:break-word}.state td{background:#f4f6fb}.truncated td{background:#fff3cd}nav{margin:1em 0}</style>
</head><body>
<h1>${escapeHtml(run.title)}</h1>
<p>Run <code>${escapeHtml(run.id)}</code> · <strong>${run.state}</strong></p>
<pre>${escapeHtml(run.prompt)}</pre>
${nav(earlierLinks(after))}<table><thead><tr><th>#</th><th>at</th><th>type</th><th>event</th></tr></thead><tbody>
`;
}

function foot(after: number, last: number, more: boolean): string {
  const shown = last > after ? `<p>Events ${after + 1}–${last}.</p>\n` : `<p>No events after #${after}.</p>\n`;
  const links = [...earlierLinks(after), ...(more ? [link(last, 'Later events →', 'next')] : [])];
  return `</tbody></table>
${shown}${nav(links)}</body></html>
`;
}

/**
 * The page of `run`'s transcript after event `after`: the run's title, state and prompt, then one
 * row per event (at most `TRANSCRIPT_PAGE_EVENTS`), then links to the pages around it. Produced
 * in pieces, each read from the store when the previous one was taken.
 */
export async function* transcriptHtml(store: Store, run: RunRecord, after: number): AsyncGenerator<string, void, undefined> {
  yield head(run, after);
  const upTo = after + TRANSCRIPT_PAGE_EVENTS;
  let last = after;
  let rows = '';
  for await (const { event, text } of renderedEventReader(store, run.id, row)(after, upTo)) {
    last = event.id;
    rows += text;
    if (rows.length >= ROWS_PIECE) {
      yield rows;
      rows = '';
    }
  }
  if (rows !== '') yield rows;
  // Ids are 1, 2, 3, … per run: a full page has a next one when the event after it exists.
  const more = last === upTo && (await store.runEvents.list(run.id, { after: upTo, limit: 1 })).length > 0;
  yield foot(after, last, more);
}
