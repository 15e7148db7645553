import type { RunEvent } from '@agentrun/client';
import { artifactLines } from './artifact-lines.js';
import { toolCallLine, toolResultLine } from './tool-lines.js';

export interface EventViewOptions {
  /** Tool lines are cut to this many columns. Default DEFAULT_WIDTH. */
  width?: number;
  /**
   * Tool names by `call_id`, filled as calls are shown: a result need not repeat its call's name.
   * One map per followed run.
   */
  toolNames?: Map<string, string>;
}

/** A tool line's width when the output is not a terminal that says its own. */
export const DEFAULT_WIDTH = 120;

/**
 * One transcript event as a line for a human (`run --follow`); the shapes of `data` are in
 * docs/run-api.md, "Run events". Output lines are the agent's own text, printed as they are; a
 * tool call or result is one line, cut to the width; an artifact is what it is (artifact-lines.ts).
 */
export function formatEvent(event: RunEvent, options: EventViewOptions = {}): string {
  const width = options.width ?? DEFAULT_WIDTH;
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
    case 'tool_call': {
      const line = toolCallLine(data, width);
      if (line === undefined) break;
      if (typeof data.call_id === 'string' && typeof data.name === 'string') options.toolNames?.set(data.call_id, data.name);
      return line;
    }
    case 'tool_result': {
      const callName = typeof data.call_id === 'string' ? options.toolNames?.get(data.call_id) : undefined;
      const line = toolResultLine(data, callName, width);
      if (line !== undefined) return line;
      break;
    }
    case 'artifact': {
      const lines = artifactLines(event.data, time);
      if (lines) return lines.join('\n');
      break;
    }
    case 'truncated':
      return `[${time}] the transcript stops here: it reached its limit of ${String(data.limit ?? '?')} events`;
  }
  return `[${time}] ${event.type}: ${JSON.stringify(event.data)}`;
}
