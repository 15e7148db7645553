import type { ExecutionOutcome, ProgressUpdate } from '../executor/executor.js';
import { wellFormedText } from '../models/text.js';

// What an executor hands the worker for the run's own fields (a status, a session, a blocking
// message, the outcome) is agent text, untrusted: it is made well formed here, before any store
// sees it, so every store keeps the same value (util/well-formed-text.ts; docs/executors.md, "Text
// a store cannot keep"). Transcript entries are cleaned where they become events
// (run/transcript.ts, `executorEvent`), which also marks them.

/** A string made well formed; anything else (an executor outside TypeScript's checks) as it is. */
export const agentText = <T>(value: T): T => (typeof value === 'string' ? (wellFormedText(value) as T) : value);

/** A progress update with its message and session made well formed. */
export function wellFormedUpdate(update: ProgressUpdate): ProgressUpdate {
  return {
    message: agentText(update.message),
    ...(update.session_id !== undefined ? { session_id: agentText(update.session_id) } : {}),
    ...(update.session_link !== undefined ? { session_link: agentText(update.session_link) } : {}),
  };
}

/** An outcome with its message and error code made well formed. */
export function wellFormedOutcome(outcome: ExecutionOutcome): ExecutionOutcome {
  if (outcome.status === 'succeeded') return outcome.message === undefined ? outcome : { ...outcome, message: agentText(outcome.message) };
  return {
    ...outcome,
    message: agentText(outcome.message),
    ...(outcome.error_code !== undefined ? { error_code: agentText(outcome.error_code) } : {}),
  };
}
