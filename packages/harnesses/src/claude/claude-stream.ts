import { type HarnessEvent, type HarnessParser, MAX_TOOL_TEXT } from '../harness.js';

/**
 * Reads Claude Code's `--output-format stream-json` (one JSON object a line):
 * - `system/init` names the session (any line's `session_id` does, if init never came);
 * - `system/api_retry` is a status;
 * - `assistant` lines carry text and `tool_use` blocks; one Claude Code synthesises for an API
 *   failure (`is_api_error_message`) is a status, since its text is the result's reason too;
 * - `user` lines carry the `tool_result` blocks, named by the earlier call's id;
 * - `result` gives the invocation's usage and outcome.
 * Thinking blocks, partial-message events and other system lines are left out; a line that is not
 * JSON is a status (Claude Code writes none in this mode, so one says something went wrong).
 */
export function claudeStreamParser(): HarnessParser {
  const toolNames = new Map<string, string>();
  let session: string | undefined;
  return {
    line(text) {
      if (text.trim() === '') return [];
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return [{ kind: 'status', message: bound(text) }];
      }
      if (!isRecord(value)) return [];
      const events: HarnessEvent[] = [];
      if (session === undefined && typeof value.session_id === 'string' && value.session_id !== '') {
        session = value.session_id;
        events.push({ kind: 'session', id: session });
      }
      events.push(...eventsOf(value, toolNames));
      return events;
    },
    end: () => [],
  };
}

type Line = Record<string, unknown>;

function eventsOf(line: Line, toolNames: Map<string, string>): HarnessEvent[] {
  switch (line.type) {
    case 'system':
      return line.subtype === 'api_retry' ? [{ kind: 'status', message: retryMessage(line) }] : [];
    case 'assistant':
      return assistantEvents(line, toolNames);
    case 'user':
      return userEvents(line, toolNames);
    case 'result':
      return resultEvents(line);
    default:
      return [];
  }
}

function assistantEvents(line: Line, toolNames: Map<string, string>): HarnessEvent[] {
  const blocks = contentOf(line.message);
  if (line.is_api_error_message === true) {
    const text = blocks.map((b) => (typeof b.text === 'string' ? b.text : '')).join('\n');
    return text === '' ? [] : [{ kind: 'status', message: bound(text) }];
  }
  const events: HarnessEvent[] = [];
  for (const block of blocks) {
    if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') {
      events.push({ kind: 'text', text: block.text });
    } else if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
      toolNames.set(block.id, block.name);
      events.push({ kind: 'tool_call', call_id: block.id, name: block.name, input: boundInput(block.input ?? {}) });
    }
  }
  return events;
}

function userEvents(line: Line, toolNames: Map<string, string>): HarnessEvent[] {
  const events: HarnessEvent[] = [];
  for (const block of contentOf(line.message)) {
    if (block.type !== 'tool_result' || typeof block.tool_use_id !== 'string') continue;
    const name = toolNames.get(block.tool_use_id);
    events.push({
      kind: 'tool_result',
      call_id: block.tool_use_id,
      ...(name === undefined ? {} : { name }),
      output: bound(resultText(block.content)),
      ...(block.is_error === true ? { is_error: true } : {}),
    });
  }
  return events;
}

function resultEvents(line: Line): HarnessEvent[] {
  const events: HarnessEvent[] = [];
  const usage = usageOf(line);
  if (usage) events.push(usage);
  const text = typeof line.result === 'string' ? line.result : '';
  if (line.is_error === false && line.subtype === 'success') {
    events.push({ kind: 'result', status: 'succeeded', message: text });
  } else {
    events.push({ kind: 'result', status: 'failed', message: bound(failureReason(line, text)) });
  }
  return events;
}

/**
 * The invocation's tokens, prompt caching included in the input. `usage` covers this invocation
 * only; `total_cost_usd` covers the whole session (a resumed one restores what came before), so the
 * cost is this invocation's own (`model_usage_since_last_result`) where the line has it.
 */
function usageOf(line: Line): HarnessEvent | undefined {
  const usage = isRecord(line.usage) ? line.usage : undefined;
  const input = usage ? sum([usage.input_tokens, usage.cache_creation_input_tokens, usage.cache_read_input_tokens]) : undefined;
  const output = usage ? sum([usage.output_tokens]) : undefined;
  const since = isRecord(line.model_usage_since_last_result) ? line.model_usage_since_last_result : undefined;
  const cost = since
    ? (sum(Object.values(since).map((m) => (isRecord(m) ? m.costUSD : undefined))) ?? 0)
    : typeof line.total_cost_usd === 'number' && Number.isFinite(line.total_cost_usd)
      ? line.total_cost_usd
      : undefined;
  if (input === undefined && output === undefined && cost === undefined) return undefined;
  return {
    kind: 'usage',
    ...(input === undefined ? {} : { input_tokens: input }),
    ...(output === undefined ? {} : { output_tokens: output }),
    ...(cost === undefined ? {} : { cost_usd: cost }),
  };
}

/** Why a turn failed: Claude Code's own words (an API error's text, `errors`), else what its subtype means. */
function failureReason(line: Line, text: string): string {
  if (text !== '') return text;
  const errors = Array.isArray(line.errors) ? line.errors.filter((e): e is string => typeof e === 'string' && e !== '') : [];
  if (errors.length > 0) return errors.join('; ');
  switch (line.subtype) {
    case 'error_max_turns':
      return 'Claude Code stopped: the turn limit was reached.';
    case 'error_max_budget_usd':
      return 'Claude Code stopped: the budget was spent.';
    case 'error_during_execution':
      return 'Claude Code failed during execution.';
    default:
      return `Claude Code reported an error (${typeof line.subtype === 'string' ? line.subtype : 'no subtype'}).`;
  }
}

function retryMessage(line: Line): string {
  const attempt = typeof line.attempt === 'number' ? line.attempt : '?';
  const max = typeof line.max_retries === 'number' ? line.max_retries : '?';
  const status = typeof line.error_status === 'number' ? ` (HTTP ${line.error_status})` : '';
  const error = typeof line.error === 'string' ? `: ${line.error}` : '';
  return bound(`Model API request failed${error}${status}; retry ${attempt} of ${max}.`);
}

/** A tool result's text: a string, or the text of its content blocks (others named by type). */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) =>
      isRecord(block) ? (block.type === 'text' && typeof block.text === 'string' ? block.text : `[${String(block.type)}]`) : '',
    )
    .filter((text) => text !== '')
    .join('\n');
}

const TRUNCATED = '…[truncated]';

/** `text`, cut to MAX_TOOL_TEXT characters (the marker included) if longer. */
function bound(text: string): string {
  if (text.length <= MAX_TOOL_TEXT) return text;
  let end = MAX_TOOL_TEXT - TRUNCATED.length;
  // Not between the two halves of a surrogate pair.
  if (/[\uDC00-\uDFFF]/.test(text.charAt(end))) end -= 1;
  return text.slice(0, end) + TRUNCATED;
}

/** A tool input whose JSON is longer than MAX_TOOL_TEXT becomes that JSON's bounded text. */
function boundInput(input: unknown): unknown {
  const json = JSON.stringify(input) ?? '';
  return json.length <= MAX_TOOL_TEXT ? input : bound(json);
}

function contentOf(message: unknown): Record<string, unknown>[] {
  const content = isRecord(message) ? message.content : undefined;
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

function sum(values: unknown[]): number | undefined {
  const numbers = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  return numbers.length === 0 ? undefined : numbers.reduce((a, b) => a + b, 0);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
