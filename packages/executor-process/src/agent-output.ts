import { DEFAULT_ARTIFACT_LIMITS, type ExecutionContext, type ExecutionOutcome } from '@agentrun/core';
import { artifactReports } from './artifact-reports.js';
import { boundedLines } from './bounded-lines.js';
import { type OutputBudget, outputBudget, type Truncation, truncationMessage } from './output-budget.js';
import { type AgentMessage, PROTOCOL_PREFIX, parseAgentLine } from './protocol.js';
import { type AgentLine, transcriptWriter } from './transcript-writer.js';

/** Plain output lines reach `status_message` at most this often (transcript-writer.ts). */
const PROGRESS_INTERVAL_MS = 1000;
/** Longest status message taken from one output line. */
const MAX_MESSAGE = 1000;
/** The longest stdout line kept whole (a protocol message fits many times over); see bounded-lines.ts. */
const MAX_LINE = 64 * 1024;

/**
 * What one run makes of its agent's stdout lines (docs/executors.md, "The JSON-lines protocol"
 * and "Output budget"): each line an event, through one ordered queue (transcript-writer.ts),
 * while the budget lasts (output-budget.ts); the `result` message kept aside, whatever the budget.
 */
export interface AgentOutput {
  /** stdout's text as it is read (decoded), split into lines by bounded-lines.ts. */
  write(chunk: string): void;
  /** stdout ended. */
  end(): void;
  /**
   * The run was stopped (timeout, cancel, disk cap; `reason` says which): lines still waiting
   * beyond a batch are dropped with the marker, so `close` does not wait for them.
   */
  stop(reason: string): void;
  /** The agent is done and its pipes closed: write what is left and wait for it. */
  close(): Promise<void>;
  /** The outcome the agent's `result` message gave, if it sent one. */
  readonly result: ExecutionOutcome | undefined;
}

export interface AgentOutputOptions {
  maxOutputBytes: number;
  onError: (error: unknown) => void;
  /** Stops and restarts the agent's stdout (transcript-writer.ts). */
  backpressure: { pause(): void; resume(): void };
  /** The execution's budget, shared with its setup commands' output (else one of `maxOutputBytes`). */
  budget?: OutputBudget;
  /** Every line is output, none a protocol message: a setup command's (prepare-environment.ts). */
  plain?: boolean;
  /** The run's workspace, which screenshots and files are read from (artifact-file.ts); none: they are refused. */
  workspace?: string;
  /** The largest screenshot or file read (core's limit, DEFAULT_ARTIFACT_LIMITS.maxFileBytes, unless set). */
  maxArtifactBytes?: number;
  /**
   * How a line becomes the run's events: the JSON-lines protocol's reading (default), or a
   * harness's reading of its CLI's stream (harness-lines.ts).
   */
  decoder?: LineDecoder;
  /** The longest line kept whole (default 64 KiB: a protocol message fits many times over). */
  maxLine?: number;
}

/** What one line of stdout is to the run (a line may be several, a harness's stream line say). */
export type Decoded =
  /** An event, and the status it leaves. */
  | { line: AgentLine }
  /** The run's outcome, kept aside whatever the budget. */
  | { result: ExecutionOutcome }
  /** The run's `request_usage` totals so far: no event. */
  | { usage: Record<string, number> }
  /** An artifact of the four kinds core keeps: its event is core's (artifact-reports.ts). */
  | { artifact: Extract<AgentMessage, { agentrun: 'artifact' }> };

/** Reads stdout into what it is to the run, a line at a time. */
export interface LineDecoder {
  /** One line, without its newline; none: the line leaves nothing. */
  line(text: string): Decoded[];
  /** stdout ended: what a stream cut short still tells. */
  end?(): Decoded[];
}

export function agentOutput(
  context: ExecutionContext,
  {
    maxOutputBytes,
    onError,
    backpressure,
    budget = outputBudget(maxOutputBytes),
    plain = false,
    workspace,
    maxArtifactBytes = DEFAULT_ARTIFACT_LIMITS.maxFileBytes,
    decoder = plain ? plainLines : protocolLines,
    maxLine = MAX_LINE,
  }: AgentOutputOptions,
): AgentOutput {
  const transcript = transcriptWriter(context, onError, { statusIntervalMs: PROGRESS_INTERVAL_MS, backpressure });
  // Artifacts of the four kinds go to core (artifact-reports.ts) through the lines' own queue, in
  // their place among the lines: a later line waits while an artifact is read and checked. A
  // refusal is a status line written to the context from that place, so every event keeps the
  // order printed (docs/executors.md, "The JSON-lines protocol").
  const artifacts = artifactReports(context, {
    workspace,
    maxFileBytes: maxArtifactBytes,
    onError,
    inOrder: (work) => transcript.inOrder(work),
    note: async (message) => {
      const update = { message: message.slice(0, MAX_MESSAGE) };
      if (context.record) await context.record([{ type: 'status', data: update }], { status: update });
      else await context.report(update);
    },
  });
  const lines = boundedLines(maxLine, (text) => line(text));
  let result: ExecutionOutcome | undefined;
  let stopReason: string | undefined;
  /** The marker, once queued: a status event, and the run's status at once. */
  let marker: AgentLine | undefined;
  const truncate = (why: Truncation) => {
    // Nothing but a `result` message counts from now on: the rest is skipped without being split into lines.
    lines.onlyStartingWith(PROTOCOL_PREFIX);
    const update = { message: truncationMessage(budget.bytes, why) };
    marker = { entry: { type: 'status', data: update }, status: { update, throttled: false } };
    transcript.add(marker, true);
  };
  /** Lines of `bytes` kept were dropped after all, as the run stopped: the marker, unless one is queued. */
  const stopped = (bytes: number, dropped: readonly AgentLine[] = []) => {
    budget.spend(bytes);
    if (marker === undefined || dropped.includes(marker)) truncate({ by: 'stop', reason: stopReason ?? 'stopped' });
  };
  function line(text: string) {
    take(decoder.line(text), Buffer.byteLength(text) + 1, text);
  }
  /** What a line (or the stream's end) decoded to; its bytes are charged to the budget once, with its first event. */
  function take(items: Decoded[], bytes: number, text: string) {
    let unpaid = bytes;
    for (const item of items) {
      if ('result' in item) result = item.result;
      // No event: the run's request_usage, written by the worker, merged while one write is out (executor.ts).
      else if ('usage' in item) context.reportUsage?.(item.usage).catch(onError);
      // An artifact core keeps: its event is core's, written when it is accepted (no line of its own).
      else if ('artifact' in item) {
        if (!artifacts.take(item.artifact)) event(agentLine(text, item.artifact), unpaid);
        unpaid = 0;
      } else {
        event(item.line, unpaid);
        unpaid = 0;
      }
    }
  }
  function event(agentLine: AgentLine, bytes: number) {
    const verdict = budget.take(bytes);
    if (verdict === 'drop') return;
    if (verdict !== 'keep') return truncate(verdict);
    // Stopped, with a batch already waiting: this line and every one after are dropped.
    if (!transcript.add({ ...agentLine, bytes })) stopped(bytes);
  }
  return {
    write: (chunk) => lines.write(chunk),
    end: () => {
      lines.end();
      const rest = decoder.end?.() ?? [];
      if (rest.length > 0) take(rest, 0, '');
    },
    stop(reason) {
      stopReason ??= reason;
      const dropped = transcript.stop();
      if (dropped.length > 0)
        stopped(
          dropped.reduce((sum, line) => sum + (line.bytes ?? 0), 0),
          dropped,
        );
    },
    // Every artifact reported before the run's outcome is written (and before the workspace goes):
    // its report waits in the transcript's queue.
    close: () => transcript.close(),
    get result() {
      return result;
    },
  };
}

/** A setup command's output: every line but a blank one is an output event. */
const plainLines: LineDecoder = { line: (text) => (text.trim() === '' ? [] : [{ line: agentLine(text, undefined) }]) };

/** The JSON-lines protocol (docs/executors.md, "The JSON-lines protocol"). */
const protocolLines: LineDecoder = { line: protocolLine };

function protocolLine(text: string): Decoded[] {
  const message = parseAgentLine(text);
  // A blank line leaves no event (and costs no budget).
  if (message === undefined && text.trim() === '') return [];
  if (message === undefined || typeof message === 'string') return [{ line: agentLine(text, message) }];
  switch (message.agentrun) {
    case 'result':
      return [{ result: outcomeOf(message) }];
    case 'usage': {
      const { agentrun: _, ...usage } = message;
      return [{ usage: usage as Record<string, number> }];
    }
    case 'artifact':
      return [{ artifact: message }];
    default:
      return [{ line: agentLine(text, message) }];
  }
}

/** A line's event, and the status it leaves (docs/executors.md, "The JSON-lines protocol"). */
function agentLine(line: string, message: Exclude<AgentMessage, { agentrun: 'result' | 'usage' }> | string | undefined): AgentLine {
  if (message === undefined || typeof message === 'string') {
    // A plain line, or not a valid message (shown as it is): an output event, and the run's
    // status (throttled) without a status event repeating it.
    return {
      entry: { type: 'output', data: { text: line } },
      status: { update: { message: line.slice(0, MAX_MESSAGE) }, throttled: true },
    };
  }
  if (message.agentrun === 'artifact') {
    // An artifact event; the status it leaves says so, without an event of its own.
    const { agentrun: _, ...artifact } = message;
    const what = message.url ?? message.path ?? message.name ?? 'unnamed';
    const update = { message: `Artifact${message.type ? ` (${message.type})` : ''}: ${what}`.slice(0, MAX_MESSAGE) };
    return { entry: { type: 'artifact', data: artifact }, status: { update, throttled: false } };
  }
  const update =
    message.agentrun === 'status'
      ? { message: message.message.slice(0, MAX_MESSAGE) }
      : {
          message: 'Session started',
          ...(message.id !== undefined ? { session_id: message.id } : {}),
          ...(message.link !== undefined ? { session_link: message.link } : {}),
        };
  return { entry: { type: 'status', data: update }, status: { update, throttled: false } };
}

/** The outcome a `result` message gives: the run's final `state` event tells it. */
function outcomeOf(message: Extract<AgentMessage, { agentrun: 'result' }>): ExecutionOutcome {
  return message.status === 'succeeded'
    ? { status: 'succeeded', ...(message.message !== undefined ? { message: message.message } : {}) }
    : {
        status: 'failed',
        message: message.message ?? 'The agent reported a failure',
        ...(message.error_code !== undefined ? { error_code: message.error_code } : {}),
      };
}
