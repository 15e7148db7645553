import type { ProgressUpdate, ToolCall, ToolResult, TranscriptEntry } from '../executor/executor.js';
import type { NewRunEvent } from '../store/run-events.js';
import type { Store } from '../store/store.js';
import { wellFormedJson } from '../util/well-formed-text.js';
import type { FollowupRecord, RunRecord } from './record.js';
import { agentSessionLink } from './session-link.js';

// What core writes to a run's transcript (docs/run-api.md, "Run events"): one event per change
// it makes. A change of state and a follow-up are written by the store in the write that makes
// them (`TransitionRunInput.transcript`, `ClaimRunInput.path`); an executor's lines right after
// their status applied. The data shapes here are the API's.

/**
 * A change of state: where from, where to, and the status message the change left. Stores write
 * it with the change, in this shape (store-memory builds it here; store-postgres in SQL, runs-sql.ts).
 */
export const stateEvent = (
  from: RunRecord['state'],
  to: RunRecord['state'],
  statusMessage: RunRecord['statusMessage'],
  at: string,
): NewRunEvent => ({
  at,
  type: 'state',
  data: { from, to, status_message: statusMessage?.message ?? null },
});

/** A follow-up added to the run. */
export const followupEvent = (followup: FollowupRecord): NewRunEvent => ({
  at: followup.createdAt,
  type: 'followup',
  data: { followup_id: followup.id, message: followup.message, creator_uid: followup.creatorUid },
});

/** A status: a progress report of the worker running it, or a status line its executor recorded. */
const statusEvent = (update: ProgressUpdate, at: string): NewRunEvent => ({
  at,
  type: 'status',
  data: {
    message: update.message,
    ...(update.session_id !== undefined ? { session_id: update.session_id } : {}),
    ...(update.session_link !== undefined ? { session_link: update.session_link } : {}),
  },
});

/** The longest output line kept (docs/run-api.md, "Run events"): a transcript is for reading. */
const MAX_OUTPUT_TEXT = 16_384;

/**
 * An executor's entry (output line, artifact, status line, tool call or result), as stored: its event, and after a
 * status whose `session_link` was refused (session-link.ts), a `status` event saying why, as an
 * artifact's refusal is one (docs/run-api.md, "The run").
 */
export function executorEvents(entry: TranscriptEntry, at: string): NewRunEvent[] {
  if (entry.type !== 'status') return [markAltered(rawExecutorEvent(entry, at))];
  const { update, refused } = agentSessionLink(entry.data);
  const event = markAltered(statusEvent(update, at));
  return refused === undefined ? [event] : [event, { at, type: 'status', data: { message: `Session link refused: ${refused}` } }];
}

function rawExecutorEvent(entry: TranscriptEntry, at: string): NewRunEvent {
  switch (entry.type) {
    case 'output':
      return { at, type: 'output', data: { text: String(entry.data.text).slice(0, MAX_OUTPUT_TEXT) } };
    case 'status':
      return statusEvent(entry.data, at);
    case 'artifact':
      return { at, type: 'artifact', data: entry.data };
    case 'tool_call':
      return { at, type: 'tool_call', data: toolCallData(entry.data) };
    case 'tool_result':
      return { at, type: 'tool_result', data: toolResultData(entry.data) };
  }
}

/** A tool's name or call id: short text. */
const MAX_TOOL_NAME = 256;

/**
 * A tool call as stored: its input kept as JSON while that is at most MAX_OUTPUT_TEXT characters,
 * else that much of its JSON text, marked `input_truncated` (docs/run-api.md, "Run events").
 */
function toolCallData(call: ToolCall): Record<string, unknown> {
  const base = { call_id: String(call.call_id).slice(0, MAX_TOOL_NAME), name: String(call.name).slice(0, MAX_TOOL_NAME) };
  let json: string | undefined;
  try {
    json = JSON.stringify(call.input);
  } catch {
    json = undefined;
  }
  if (json === undefined) return { ...base, input: null };
  if (json.length <= MAX_OUTPUT_TEXT) return { ...base, input: JSON.parse(json) as unknown };
  return { ...base, input: json.slice(0, MAX_OUTPUT_TEXT), input_truncated: true };
}

/** A tool result as stored: its output cut at MAX_OUTPUT_TEXT characters, marked `truncated` when it was. */
function toolResultData(result: ToolResult): Record<string, unknown> {
  const output = String(result.output);
  return {
    call_id: String(result.call_id).slice(0, MAX_TOOL_NAME),
    ...(result.name !== undefined ? { name: String(result.name).slice(0, MAX_TOOL_NAME) } : {}),
    output: output.slice(0, MAX_OUTPUT_TEXT),
    ...(output.length > MAX_OUTPUT_TEXT ? { truncated: true } : {}),
    ...(result.is_error === true ? { is_error: true } : {}),
  };
}

/**
 * Agent text is untrusted: an event's data is made well formed (NUL and unpaired surrogates become
 * U+FFFD, util/well-formed-text.ts) before any store sees it, after the output's cut (which may
 * split a surrogate pair), and an event whose text was altered says so with `sanitized: true`
 * (docs/executors.md, "Text a store cannot keep").
 */
function markAltered(event: NewRunEvent): NewRunEvent {
  const { value, altered } = wellFormedJson(event.data);
  if (!altered) return event;
  const data =
    value !== null && typeof value === 'object' && !Array.isArray(value) ? { ...value, sanitized: true } : { value, sanitized: true };
  return { ...event, data };
}

/**
 * Append to a run's transcript after the change it tells of committed. A failure is reported,
 * never thrown: the change stands, and the transcript only misses its line (docs/run-api.md,
 * "Run events").
 */
export async function appendTranscript(
  store: Store,
  onError: (error: unknown) => void,
  runId: string,
  events: readonly NewRunEvent[],
): Promise<void> {
  if (events.length === 0) return;
  try {
    await store.runEvents.append(runId, events);
  } catch (error) {
    onError(error);
  }
}
