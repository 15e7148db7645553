import { type HarnessEvent, type HarnessParser, MAX_TOOL_TEXT } from '../harness.js';

/**
 * Gemini CLI's `--output-format stream-json`, one JSON object a line (docs/harnesses.md, "Gemini
 * CLI"): `init` (the session), `message` (the user's prompt echoed, then the assistant's text in
 * `delta` pieces as the model streams it), `tool_use`, `tool_result`, `error` (a warning, or what
 * went wrong before a failed `result`) and `result` (`success` or `error`, with the invocation's
 * token counts so far).
 */
type GeminiLine =
  | { type: 'init'; session_id?: unknown }
  | { type: 'message'; role?: unknown; content?: unknown; delta?: unknown }
  | { type: 'tool_use'; tool_name?: unknown; tool_id?: unknown; parameters?: unknown }
  | { type: 'tool_result'; tool_id?: unknown; status?: unknown; output?: unknown; error?: unknown }
  | { type: 'error'; severity?: unknown; message?: unknown }
  | { type: 'result'; status?: unknown; error?: unknown; stats?: unknown };

const TRUNCATED = '… [truncated]';

/** `text`, cut to MAX_TOOL_TEXT characters. */
const boundText = (text: string): string =>
  text.length <= MAX_TOOL_TEXT ? text : text.slice(0, MAX_TOOL_TEXT - TRUNCATED.length) + TRUNCATED;

/** A tool call's input as given, unless its JSON is too long: then that JSON, cut. */
const boundInput = (input: unknown): unknown => {
  const json = JSON.stringify(input ?? {}) ?? '{}';
  return json.length <= MAX_TOOL_TEXT ? (input ?? {}) : boundText(json);
};

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
const messageOf = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null ? str((error as { message?: unknown }).message) : undefined;

const parse = (text: string): GeminiLine | undefined => {
  if (!text.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'
      ? (value as GeminiLine)
      : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The assistant's streamed pieces are joined into one `text` event per message: a message ends
 * where a tool call, a result or the stream's end comes. The text after the last tool call is
 * the turn's final text, the `result`'s message on success.
 */
export function geminiStreamParser(): HarnessParser {
  let pending = '';
  let lastText = '';
  let lastError: string | undefined;
  const toolNames = new Map<string, string>();

  const flush = (): HarnessEvent[] => {
    if (pending === '') return [];
    const text = pending;
    pending = '';
    lastText = text;
    return [{ kind: 'text', text }];
  };

  const read = (line: GeminiLine): HarnessEvent[] => {
    switch (line.type) {
      case 'init': {
        const id = str(line.session_id);
        return id ? [{ kind: 'session', id }] : [];
      }
      case 'message': {
        const content = str(line.content);
        if (line.role !== 'assistant' || content === undefined) return [];
        if (line.delta === true) {
          pending += content;
          return [];
        }
        // A whole message: what was streamed before it is a message of its own.
        const before = flush();
        pending = content;
        return [...before, ...flush()];
      }
      case 'tool_use': {
        const callId = str(line.tool_id) ?? '';
        const name = str(line.tool_name) ?? 'unknown';
        toolNames.set(callId, name);
        const before = flush();
        // Text before a tool call is the model thinking aloud, not the turn's answer.
        lastText = '';
        return [...before, { kind: 'tool_call', call_id: callId, name, input: boundInput(line.parameters) }];
      }
      case 'tool_result': {
        const callId = str(line.tool_id) ?? '';
        const isError = line.status === 'error';
        const output = str(line.output) ?? (isError ? messageOf(line.error) : undefined) ?? '';
        const name = toolNames.get(callId);
        return [
          ...flush(),
          {
            kind: 'tool_result',
            call_id: callId,
            ...(name === undefined ? {} : { name }),
            output: boundText(output),
            ...(isError ? { is_error: true } : {}),
          },
        ];
      }
      case 'error': {
        const message = boundText(str(line.message) ?? 'Gemini CLI reported an error');
        if (line.severity !== 'warning') lastError = message;
        return [{ kind: 'status', message }];
      }
      case 'result':
        return [...flush(), ...usage(line.stats), outcome(line)];
      default:
        return [];
    }
  };

  const outcome = (line: Extract<GeminiLine, { type: 'result' }>): HarnessEvent => {
    if (line.status === 'success') return { kind: 'result', status: 'succeeded', message: lastText };
    const message = messageOf(line.error) ?? lastError ?? 'Gemini CLI ended the turn with an error';
    return { kind: 'result', status: 'failed', message: boundText(message) };
  };

  return {
    line(text) {
      const parsed = parse(text.trim());
      return parsed ? read(parsed) : [];
    },
    end: flush,
  };
}

/** The `result`'s stats: tokens over every model call of this invocation. */
const usage = (stats: unknown): HarnessEvent[] => {
  if (typeof stats !== 'object' || stats === null) return [];
  const { input_tokens, output_tokens } = stats as { input_tokens?: unknown; output_tokens?: unknown };
  const input = count(input_tokens);
  const output = count(output_tokens);
  if (input === undefined && output === undefined) return [];
  return [
    {
      kind: 'usage',
      ...(input === undefined ? {} : { input_tokens: input }),
      ...(output === undefined ? {} : { output_tokens: output }),
    },
  ];
};
