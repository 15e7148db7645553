import type { RunEventRecord } from '../store/run-events.js';
import type { RunRecord } from './record.js';

// The human-readable view of a run's transcript (docs/run-api.md, "The transcript page"), the
// default `session_link`. Every string from the run or its events is escaped: a prompt or an
// agent's output is never markup.

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

/** The page: the run's title, state and prompt, then one row per event. */
export function transcriptHtml(run: RunRecord, events: readonly RunEventRecord[]): string {
  const rows = events
    .map(
      (e) =>
        `<tr class="${e.type}"><td>${e.id}</td><td><time>${escapeHtml(e.at)}</time></td><td>${e.type}</td><td><pre>${escapeHtml(describe(e))}</pre></td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(run.title)} · agentrun</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse;width:100%}td{border-top:1px solid #ddd;padding:4px 8px;vertical-align:top}pre{margin:0;white-space:pre-wrap;word-break:break-word}.state td{background:#f4f6fb}.truncated td{background:#fff3cd}</style>
</head><body>
<h1>${escapeHtml(run.title)}</h1>
<p>Run <code>${escapeHtml(run.id)}</code> · <strong>${run.state}</strong></p>
<pre>${escapeHtml(run.prompt)}</pre>
<table><thead><tr><th>#</th><th>at</th><th>type</th><th>event</th></tr></thead><tbody>
${rows}
</tbody></table>
</body></html>
`;
}
