import { type HarnessEvent, type HarnessParser, MAX_TOOL_TEXT } from '../harness.js';

/**
 * Reads `codex exec --json`: one JSON event a line. `thread.started` names the session;
 * `item.started`/`item.completed` carry what the agent did (`command_execution`, `file_change`,
 * `mcp_tool_call`, `web_search`: a tool call when it starts, its result when it completes;
 * `agent_message`: text); `turn.completed` ends the turn with its token counts, `turn.failed`
 * ends it failed. Top-level `error` events are Codex's retries and warnings as much as its
 * failures, so they are status notes; the turn's end says which it was.
 */
export function codexParser(): HarnessParser {
  const calls: Calls = { open: new Map(), done: new Set() };
  let lastMessage = '';
  let ended = false;
  return {
    line(text) {
      const event = parseEvent(text);
      if (!event || ended) return [];
      switch (event.type) {
        case 'thread.started':
          return typeof event.thread_id === 'string' && THREAD_ID.test(event.thread_id) ? [{ kind: 'session', id: event.thread_id }] : [];
        case 'item.started':
        case 'item.completed': {
          const item = asRecord(event.item);
          if (!item) return [];
          const events = itemEvents(item, event.type === 'item.completed', calls);
          for (const e of events) if (e.kind === 'text') lastMessage = e.text;
          return events;
        }
        case 'turn.completed':
          ended = true;
          return [...usageOf(event.usage), { kind: 'result', status: 'succeeded', message: lastMessage }];
        case 'turn.failed':
          ended = true;
          return [{ kind: 'result', status: 'failed', message: messageOf(event.error) ?? 'The turn failed.' }];
        case 'error': {
          const message = messageOf(event);
          return message ? [{ kind: 'status', message }] : [];
        }
        default:
          return [];
      }
    },
    end() {
      // A call the stream never completed (Codex killed mid-command) still gets its result, so every call has one.
      const events: HarnessEvent[] = [...calls.open].map(([callId, name]) => ({
        kind: 'tool_result',
        call_id: callId,
        name,
        output: 'The tool call did not complete.',
        is_error: true,
      }));
      calls.open.clear();
      return events;
    },
  };
}

type Json = Record<string, unknown>;

/** A thread id as Codex makes them (a UUID): the next turn passes it as an argument, where a leading `-` would read as an option. */
const THREAD_ID = /^[0-9a-zA-Z][0-9a-zA-Z_-]{0,127}$/;

const asRecord = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;

function parseEvent(text: string): (Json & { type?: unknown }) | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    return asRecord(JSON.parse(trimmed));
  } catch {
    return undefined;
  }
}

const messageOf = (value: unknown): string | undefined => {
  const message = asRecord(value)?.message;
  return typeof message === 'string' && message !== '' ? clip(message) : undefined;
};

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** At most MAX_TOOL_TEXT characters, cut where it cannot split a character in two. */
export function clip(text: string): string {
  if (text.length <= MAX_TOOL_TEXT) return text;
  let end = MAX_TOOL_TEXT - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** A tool input as kept: the value itself while its JSON is short enough, else that JSON cut short. */
function boundedInput(input: unknown): unknown {
  const json = JSON.stringify(input) ?? 'null';
  return json.length <= MAX_TOOL_TEXT ? input : clip(json);
}

function usageOf(value: unknown): HarnessEvent[] {
  const usage = asRecord(value);
  if (!usage) return [];
  const count = (n: unknown): number | undefined => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined);
  const event: HarnessEvent & { kind: 'usage' } = { kind: 'usage' };
  const input = count(usage.input_tokens);
  const output = count(usage.output_tokens);
  if (input !== undefined) event.input_tokens = input;
  if (output !== undefined) event.output_tokens = output;
  return input === undefined && output === undefined ? [] : [event];
}

/** The name and input of a tool-like item, or undefined for items that are not tool calls. */
function callOf(item: Json): { name: string; input: unknown } | undefined {
  switch (item.type) {
    case 'command_execution':
      return { name: 'shell', input: { command: str(item.command) } };
    case 'file_change':
      return { name: 'apply_patch', input: { changes: Array.isArray(item.changes) ? item.changes : [] } };
    case 'mcp_tool_call':
      return { name: `mcp__${str(item.server)}__${str(item.tool)}`, input: item.arguments ?? {} };
    case 'web_search':
      return { name: 'web_search', input: { query: str(item.query) } };
    default:
      return undefined;
  }
}

/** A completed tool-like item's output and whether it failed. */
function resultOf(item: Json): { output: string; is_error: boolean } {
  switch (item.type) {
    case 'command_execution': {
      const exitCode = item.exit_code;
      const failed = item.status === 'failed' || item.status === 'declined' || (typeof exitCode === 'number' && exitCode !== 0);
      return { output: str(item.aggregated_output), is_error: failed };
    }
    case 'file_change': {
      const changes = Array.isArray(item.changes) ? item.changes.map(asRecord) : [];
      const lines = changes.map((c) => `${str(c?.kind)} ${str(c?.path)}`);
      return { output: lines.join('\n'), is_error: item.status === 'failed' };
    }
    case 'mcp_tool_call': {
      const error = messageOf(item.error);
      if (error) return { output: error, is_error: true };
      return { output: mcpOutput(item.result), is_error: item.status === 'failed' };
    }
    default:
      return { output: str(item.query), is_error: false };
  }
}

/** An MCP result's text blocks, or its content as JSON where it holds other blocks. */
function mcpOutput(value: unknown): string {
  const result = asRecord(value);
  if (!result) return '';
  const content = Array.isArray(result.content) ? result.content.map(asRecord) : [];
  if (content.length > 0 && content.every((c) => c?.type === 'text' && typeof c.text === 'string')) {
    return content.map((c) => c?.text as string).join('\n');
  }
  const structured = result.structured_content;
  return JSON.stringify(content.length > 0 || structured == null ? content : structured) ?? '';
}

/** The parser's memory of tool calls: those started and not completed (by item id, with their name), and those done. */
interface Calls {
  open: Map<string, string>;
  done: Set<string>;
}

function itemEvents(item: Json, completed: boolean, calls: Calls): HarnessEvent[] {
  const id = str(item.id);
  if (item.type === 'agent_message') return completed && typeof item.text === 'string' ? [{ kind: 'text', text: item.text }] : [];
  if (item.type === 'error') return completed ? [{ kind: 'status', message: messageOf(item) ?? 'error' }] : [];
  const call = callOf(item);
  if (!call || id === '' || calls.done.has(id)) return [];
  const events: HarnessEvent[] = [];
  // Codex reports some items only once they complete: the call comes first then, with its result.
  if (!calls.open.has(id)) {
    events.push({ kind: 'tool_call', call_id: id, name: call.name, input: boundedInput(call.input) });
    calls.open.set(id, call.name);
  }
  if (completed) {
    const { output, is_error } = resultOf(item);
    const result: HarnessEvent = { kind: 'tool_result', call_id: id, name: call.name, output: clip(output) };
    if (is_error) result.is_error = true;
    events.push(result);
    calls.open.delete(id);
    calls.done.add(id);
  }
  return events;
}
