import type { ResponseOf, RunEvent } from '@agentrun/client';
import { startedBy } from '@agentrun/core/api';

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

/** An artifact as a run and its `artifact` events carry it (docs/artifacts.md). */
export type Artifact = NonNullable<ResponseOf<'getRun'>['artifacts']>[number];

/** The worker that started a run, as the start's `state` event says (core's run/started-status.ts). */
export interface RunWorker {
  id: string;
  host: string;
  at: string;
}

/**
 * What the run page's timeline shows, in order: a change of state (with how long after the one
 * before it came), an artifact drawn as what it is, a tool block (a call with its result once that
 * arrives, or a result whose call was never seen, alone), or any other event as a line. `id` is the
 * event id of the item's first event, a key that stays the same as the transcript grows.
 */
export type TranscriptItem =
  | { kind: 'event'; id: number; event: RunEvent }
  | { kind: 'state'; id: number; at: string; from: string; to: string; message: string | null; afterMs: number | null }
  | { kind: 'artifact'; id: number; at: string; artifact: Artifact }
  | { kind: 'tool'; id: number; at: string; call?: ToolCallData; result?: ToolResultData };

/**
 * The events as items: each result joins the latest call before it with its `call_id` that has no
 * result yet. An event whose data is not of its type's shape stays a plain event line.
 */
export function transcriptItems(events: readonly RunEvent[]): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  const waiting = new Map<string, Extract<TranscriptItem, { kind: 'tool' }>>();
  let lastStateAt: string | undefined;
  for (const event of events) {
    const call = event.type === 'tool_call' ? toolCall(event.data) : undefined;
    const result = event.type === 'tool_result' ? toolResult(event.data) : undefined;
    const state = event.type === 'state' ? stateChange(event.data) : undefined;
    const artifact = event.type === 'artifact' ? artifactOf(event.data) : undefined;
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
    } else if (state) {
      const afterMs = lastStateAt === undefined ? null : Date.parse(event.at) - Date.parse(lastStateAt);
      items.push({ kind: 'state', id: event.id, at: event.at, ...state, afterMs });
      lastStateAt = event.at;
    } else if (artifact) items.push({ kind: 'artifact', id: event.id, at: event.at, artifact });
    else items.push({ kind: 'event', id: event.id, event });
  }
  return items;
}

/**
 * The run's state as its transcript tells it, when that is newer than the run as last read: the
 * last `state` event's `to`, if it came after `updatedAt` (a replay of older events does not
 * show a state the run has left).
 */
export function liveState(events: readonly RunEvent[], run: { state: string; updated_at: string }): string {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as RunEvent;
    if (event.type !== 'state') continue;
    const change = stateChange(event.data);
    if (!change) continue;
    return Date.parse(event.at) > Date.parse(run.updated_at) ? change.to : run.state;
  }
  return run.state;
}

/**
 * The worker that last started the run (a follow-up may run on another), as the `status_message`
 * of the change of state that started it names it.
 */
export function runWorker(events: readonly RunEvent[]): RunWorker | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as RunEvent;
    const change = event.type === 'state' ? stateChange(event.data) : undefined;
    const by = change?.message ? startedBy(change.message) : undefined;
    if (by) return { id: by.workerId, host: by.host, at: event.at };
  }
  return undefined;
}

/** A span of time in words: `850 ms`, `12 s`, `3 min 5 s`, `2 h 4 min`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return s % 60 ? `${min} min ${s % 60} s` : `${min} min`;
  const h = Math.floor(min / 60);
  return min % 60 ? `${h} h ${min % 60} min` : `${h} h`;
}

function stateChange(data: unknown): { from: string; to: string; message: string | null } | undefined {
  if (!isRecord(data) || typeof data.to !== 'string') return undefined;
  return {
    from: typeof data.from === 'string' ? data.from : '?',
    to: data.to,
    message: typeof data.status_message === 'string' && data.status_message !== '' ? data.status_message : null,
  };
}

/** What each artifact type must carry for the page to draw it; else its event is a plain line. */
const ARTIFACT_FIELDS: Record<Artifact['artifact_type'], readonly string[]> = {
  PULL_REQUEST: ['url', 'branch'],
  PLAN: [],
  SCREENSHOT: ['artifact_uid'],
  FILE: ['artifact_uid', 'filename', 'filepath', 'mime_type'],
};

function artifactOf(data: unknown): Artifact | undefined {
  if (!isRecord(data) || typeof data.artifact_type !== 'string' || !isRecord(data.data)) return undefined;
  const fields = ARTIFACT_FIELDS[data.artifact_type as Artifact['artifact_type']];
  if (!Object.hasOwn(ARTIFACT_FIELDS, data.artifact_type) || !fields) return undefined;
  const inner = data.data;
  if (!fields.every((field) => typeof inner[field] === 'string')) return undefined;
  return data as unknown as Artifact;
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
