import type { ProgressUpdate, TranscriptEntry } from '../executor/executor.js';
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
 * An executor's entry (output line, artifact or status line), as stored: its event, and after a
 * status whose `session_link` was refused (session-link.ts), a `status` event saying why, as an
 * artifact's refusal is one (docs/run-api.md, "The run").
 */
export function executorEvents(entry: TranscriptEntry, at: string): NewRunEvent[] {
  if (entry.type !== 'status') return [markAltered(rawExecutorEvent(entry, at))];
  const { update, refused } = agentSessionLink(entry.data);
  const event = markAltered(statusEvent(update, at));
  return refused === undefined ? [event] : [event, { at, type: 'status', data: { message: `Session link refused: ${refused}` } }];
}

const rawExecutorEvent = (entry: TranscriptEntry, at: string): NewRunEvent =>
  entry.type === 'output'
    ? { at, type: 'output', data: { text: String(entry.data.text).slice(0, MAX_OUTPUT_TEXT) } }
    : entry.type === 'status'
      ? statusEvent(entry.data, at)
      : { at, type: 'artifact', data: entry.data };

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
