import type { RunEvent } from '@agentrun/client';

/**
 * One transcript event as a line for a human (`run --follow`); the shapes of `data` are in
 * docs/run-api.md, "Run events". Output lines are the agent's own text, printed as they are.
 */
export function formatEvent(event: RunEvent): string {
  const data = (typeof event.data === 'object' && event.data !== null ? event.data : {}) as Record<string, unknown>;
  const time = event.at.slice(11, 19);
  switch (event.type) {
    case 'output':
      return typeof data.text === 'string' ? data.text.replace(/\n$/, '') : JSON.stringify(event.data);
    case 'state': {
      const status = data.status_message;
      const message = typeof status === 'object' && status !== null ? (status as { message?: unknown }).message : status;
      return `[${time}] ${String(data.from ?? '?')} → ${String(data.to ?? '?')}${typeof message === 'string' ? `: ${message}` : ''}`;
    }
    case 'status':
      return `[${time}] status: ${String(data.message ?? '')}${typeof data.session_link === 'string' ? ` (${data.session_link})` : ''}`;
    case 'followup':
      return `[${time}] follow-up: ${String(data.message ?? '')}`;
    case 'truncated':
      return `[${time}] the transcript stops here: it reached its limit of ${String(data.limit ?? '?')} events`;
    default:
      return `[${time}] ${event.type}: ${JSON.stringify(event.data)}`;
  }
}
