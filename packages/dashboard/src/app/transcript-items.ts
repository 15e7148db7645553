import type { RunEvent } from '@agentrun/client';

/** A `tool_call` event's data (docs/run-api.md, "Run events"). */
export interface ToolCallData {
  call_id: string;
  name: string;
  /** The tool's JSON input, or when `input_truncated` the start of its JSON text. */
  input: unknown;
  input_truncated: boolean;
}

/** A `tool_result` event's data. */
export interface ToolResultData {
  call_id: string;
  name?: string;
  output: string;
  truncated: boolean;
  is_error: boolean;
}

/**
 * What the run page's transcript shows, in order: an event as a line, or a tool block, a call with
 * its result once that arrives (or a result whose call was never seen, alone). `id` is the event
 * id of the block's first event, a key that stays the same as the transcript grows.
 */
export type TranscriptItem =
  | { kind: 'event'; id: number; event: RunEvent }
  | { kind: 'tool'; id: number; at: string; call?: ToolCallData; result?: ToolResultData };

/**
 * The events as items: each result joins the latest call before it with its `call_id` that has no
 * result yet. A tool event whose data is not of its shape stays a plain event line.
 */
export function transcriptItems(events: readonly RunEvent[]): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  const waiting = new Map<string, Extract<TranscriptItem, { kind: 'tool' }>>();
  for (const event of events) {
    const call = event.type === 'tool_call' ? toolCall(event.data) : undefined;
    const result = event.type === 'tool_result' ? toolResult(event.data) : undefined;
    if (call) {
      const item = { kind: 'tool' as const, id: event.id, at: event.at, call };
      items.push(item);
      waiting.set(call.call_id, item);
    } else if (result) {
      const item = waiting.get(result.call_id);
      if (item) {
        item.result = result;
        waiting.delete(result.call_id);
      } else items.push({ kind: 'tool', id: event.id, at: event.at, result });
    } else items.push({ kind: 'event', id: event.id, event });
  }
  return items;
}

function toolCall(data: unknown): ToolCallData | undefined {
  if (!isRecord(data) || typeof data.call_id !== 'string' || typeof data.name !== 'string') return undefined;
  return { call_id: data.call_id, name: data.name, input: data.input, input_truncated: data.input_truncated === true };
}

function toolResult(data: unknown): ToolResultData | undefined {
  if (!isRecord(data) || typeof data.call_id !== 'string' || typeof data.output !== 'string') return undefined;
  return {
    call_id: data.call_id,
    ...(typeof data.name === 'string' ? { name: data.name } : {}),
    output: data.output,
    truncated: data.truncated === true,
    is_error: data.is_error === true,
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
