import type { RunItem } from '../models/run.js';
import type { FollowupRecord } from '../run/record.js';

/**
 * Runs the agent. A worker claims a queued run, moves it to `INPROGRESS`, and calls `execute`;
 * the returned outcome ends the run. Throwing means the platform failed (the run ends `ERROR`).
 */
export interface Executor {
  execute(input: ExecutionInput, context: ExecutionContext): Promise<ExecutionOutcome>;
}

export interface ExecutionInput {
  run: RunItem;
  /** Follow-up messages so far, oldest first (a re-queued run continues its conversation). */
  followups: readonly FollowupRecord[];
  /** 1 on the first claim; higher after a lease expired and the run was re-queued. */
  attempt: number;
  /** The bytes of one of `run.attachments`, by its `file_name`; undefined if the run has no such file. */
  readAttachment(fileName: string): Promise<Uint8Array | undefined>;
}

export interface ExecutionContext {
  /** Aborted when the run is cancelled, the lease is lost, or the worker stops. Stop promptly. */
  readonly signal: AbortSignal;
  /** Progress shown as the run's `status_message`; optionally the session it runs in. */
  report(update: ProgressUpdate): Promise<void>;
  /** The run waits on input (`BLOCKED`); call `resume` when a follow-up supplies it. */
  block(message: string): Promise<void>;
  resume(): Promise<void>;
  /** Called for each follow-up sent while this execution runs. Returns an unsubscribe function. */
  onFollowup(listener: (followup: FollowupRecord) => void): () => void;
  /**
   * Append to the run's transcript what `status_message` cannot keep: the agent's output lines
   * and its artifacts (docs/run-api.md, "Run events"). Nothing is written once the execution was
   * aborted. Optional so that a context made by hand (in a test) need not have it; the worker's
   * always does.
   */
  record?(entries: readonly TranscriptEntry[]): Promise<void>;
}

/** An entry an executor adds to the transcript; an output line longer than 16,384 characters is cut there. */
export type TranscriptEntry = { type: 'output'; data: { text: string } } | { type: 'artifact'; data: Record<string, unknown> };

export interface ProgressUpdate {
  message: string;
  session_id?: string;
  session_link?: string;
}

export type ExecutionOutcome =
  | { status: 'succeeded'; message?: string }
  | { status: 'failed'; message: string; error_code?: string; retryable?: boolean };
