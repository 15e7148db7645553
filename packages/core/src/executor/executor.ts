import type { ArtifactReportResult, ReportedArtifact } from '../artifacts/report.js';
import type { ResolvedEnvironment } from '../environments/resolved.js';
import type { HarnessInfo } from '../harness/harness-types.js';
import type { HarnessAuth } from '../harness/resolve-harness-auth.js';
import type { RunItem } from '../models/run.js';
import type { FollowupRecord } from '../run/record.js';

/**
 * Runs the agent. A worker claims a queued run, moves it to `INPROGRESS`, and calls `execute`;
 * the returned outcome ends the run. Throwing means the platform failed (the run ends `ERROR`).
 * The text an executor hands the worker may hold anything: NUL and unpaired surrogates become
 * U+FFFD before a store sees them (docs/executors.md, "Text a store cannot keep").
 */
export interface Executor {
  execute(input: ExecutionInput, context: ExecutionContext): Promise<ExecutionOutcome>;
  /**
   * The harnesses this executor runs (docs/harnesses.md), which `GET /agent/harnesses` lists and a
   * run's `config.harness.type` is checked against at create. Absent: any known harness name is
   * accepted, and the executor maps it as it will.
   */
  harnesses?(): Promise<readonly HarnessInfo[]>;
  /**
   * Clears what the executions of a worker that died left behind (the container executor's
   * containers of its host: docs/executors.md, "The container executor"). A worker calls it once
   * when it starts; a failure goes to the worker's `onError`.
   */
  sweep?(): Promise<unknown>;
}

export interface ExecutionInput {
  run: RunItem;
  /** Follow-up messages so far, oldest first (a re-queued run continues its conversation). */
  followups: readonly FollowupRecord[];
  /** 1 on the first claim; higher after a lease expired and the run was re-queued. */
  attempt: number;
  /** The bytes of one of `run.attachments`, by its `file_name`; undefined if the run has no such file. */
  readAttachment(fileName: string): Promise<Uint8Array | undefined>;
  /**
   * The run's environment (`config.environment_id`), its variables' team secrets opened as
   * `SecretValue`s that print as `[secret]`; absent for a run without one. Preparing the workspace
   * from it is the executor's (docs/repositories.md, "What an executor receives").
   */
  environment?: ResolvedEnvironment;
  /**
   * The team secrets the run's config names for its harness's API key (`config.harness.auth_secret_name`,
   * `config.harness_auth_secrets`), opened, by the field that names them; absent when none is named.
   * `authSecretSourceFor` says which one a harness reads (docs/harnesses.md, "Authentication").
   */
  harnessAuth?: HarnessAuth;
}

export interface ExecutionContext {
  /** Aborted when the run is cancelled, the lease is lost, or the worker stops. Stop promptly. */
  readonly signal: AbortSignal;
  /** Progress shown as the run's `status_message`; optionally the session it runs in. */
  report(update: ProgressUpdate): Promise<void>;
  /** The run waits on input (`BLOCKED`); call `resume` when a follow-up supplies it. */
  block(message: string): Promise<void>;
  resume(): Promise<void>;
  /**
   * Called for each follow-up sent while this execution runs, in order, until `execute` returns;
   * one sent before a listener registered is delivered right after. One the execution never
   * receives queues the run again after its outcome (docs/executors.md, "Follow-ups"). Returns an
   * unsubscribe function.
   */
  onFollowup(listener: (followup: FollowupRecord) => void): () => void;
  /**
   * Append to the run's transcript, in the order given and in one write, what `status_message`
   * cannot keep: the agent's output lines, its artifacts and its status lines (docs/run-api.md,
   * "Run events"). With `options.status`, the run's `status_message` (and session) is set first,
   * in the same ordered step, with no event of its own: `report(u)` is
   * `record([{ type: 'status', data: u }], { status: u })`. The context's writes (report, record,
   * block, resume) are made one at a time in the order they were called, so a transcript keeps
   * the order the executor wrote it in (docs/executors.md, "The Executor interface"). Nothing is
   * written once the execution was aborted. Optional so that a context made by hand (in a test)
   * need not have it; the worker's always does.
   */
  record?(entries: readonly TranscriptEntry[], options?: RecordOptions): Promise<void>;
  /**
   * What the run has cost so far, as the agent reports it: the run's `request_usage` (docs/run-api.md).
   * Each report is the totals so far; fields it gives replace the run's, others stay; only finite
   * numbers of the known fields count, each clamped to 0…1e12 (models/request-usage.ts). Reports
   * made while one is being written are merged into one write, so an agent that reports on every
   * line costs at most one write at a time. Optional, like `record`; the worker's always has it.
   */
  reportUsage?(usage: Readonly<Record<string, unknown>>): Promise<void>;
  /**
   * Keep an artifact of the run (docs/artifacts.md): a plan, a pull request, or a screenshot's or
   * file's bytes the executor read from the workspace. Checked by core (shape, sizes, a
   * screenshot's image type, the run's quota) and, when accepted, added to the run's `artifacts`
   * and its transcript as an `artifact` event, in order with `record`'s writes. A refusal stores
   * nothing and says why. Optional, like `record`; the worker's always has it.
   */
  reportArtifact?(artifact: ReportedArtifact): Promise<ArtifactReportResult>;
}

/**
 * An entry an executor adds to the transcript, one event each: an output line (longer than
 * 16,384 characters is cut there), an artifact, a status line, or a tool the agent called and its
 * result (an input longer than 16,384 characters as JSON, or an output longer than that, is cut
 * there and marked: docs/run-api.md, "Run events").
 */
export type TranscriptEntry =
  | { type: 'output'; data: { text: string } }
  | { type: 'artifact'; data: Record<string, unknown> }
  | { type: 'status'; data: ProgressUpdate }
  | { type: 'tool_call'; data: ToolCall }
  | { type: 'tool_result'; data: ToolResult };

/** A tool the agent called: `call_id` pairs it with its result. */
export interface ToolCall {
  call_id: string;
  name: string;
  /** The tool's input as the agent gave it (JSON). */
  input: unknown;
}

/** What a tool call returned: its output as text, and whether the tool reported an error. */
export interface ToolResult {
  call_id: string;
  name?: string;
  output: string;
  is_error?: boolean;
}

export interface RecordOptions {
  /**
   * What the run's `status_message` (and session) becomes, written before the entries: a status
   * taken from a line that is already an entry (an output line, an artifact) is not a second
   * event.
   */
  status?: ProgressUpdate;
}

export interface ProgressUpdate {
  message: string;
  session_id?: string;
  session_link?: string;
}

export type ExecutionOutcome =
  | { status: 'succeeded'; message?: string }
  | { status: 'failed'; message: string; error_code?: string; retryable?: boolean };
