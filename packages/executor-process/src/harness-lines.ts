import type { ExecutionOutcome } from '@agentrun/core';
import { toolSummary } from '@agentrun/core/api';
import type { HarnessEvent, HarnessParser } from '@agentrun/harnesses';
import type { Decoded, LineDecoder } from './agent-output.js';

/** Longest status message taken from the agent's text or a tool call. */
const MAX_MESSAGE = 1000;

/** What a run has used, summed over its CLI's invocations (each reports its own). */
export interface UsageTotals {
  input_tokens: number;
  output_tokens: number;
  /** Only where the CLI prices its calls. */
  inference_cost_usd?: number;
}

/** One invocation's stream, as a harness's parser reads it, and what it told. */
export interface HarnessLines {
  readonly decoder: LineDecoder;
  /** The session the CLI reported, to continue with the next turn. */
  readonly sessionId: string | undefined;
  /** The turn's outcome, once the CLI told it. */
  readonly outcome: ExecutionOutcome | undefined;
  /** Each tool call of the invocation, in a few words (`Bash: ls`): what a replayed conversation tells of it. */
  readonly tools: readonly string[];
  /** The run's usage with this invocation's counted in; undefined while it reported none. */
  readonly usage: UsageTotals | undefined;
}

/**
 * A harness's stream read into the run's events (docs/harnesses.md, "The transcript"): assistant
 * text an `output` event, each tool call and result its own event, the session a `status` event
 * that sets the run's `session_id`, usage the run's `request_usage` (the totals before this
 * invocation plus its own, as the CLI counts them so far), the outcome kept aside.
 */
export function harnessLines(parser: HarnessParser, before: UsageTotals, program: string): HarnessLines {
  let sessionId: string | undefined;
  let outcome: ExecutionOutcome | undefined;
  let usage: UsageTotals | undefined;
  const tools: string[] = [];
  const read = (events: HarnessEvent[]): Decoded[] => events.flatMap(decode);
  function decode(event: HarnessEvent): Decoded[] {
    switch (event.kind) {
      case 'session': {
        sessionId = event.id;
        const update = { message: 'Session started', session_id: event.id };
        return [{ line: { entry: { type: 'status', data: update }, status: { update, throttled: false } } }];
      }
      case 'text':
        if (event.text.trim() === '') return [];
        return [
          {
            line: {
              entry: { type: 'output', data: { text: event.text } },
              status: { update: { message: firstLine(event.text) }, throttled: true },
            },
          },
        ];
      case 'tool_call': {
        const data = { call_id: event.call_id, name: event.name, input: event.input };
        const message = `${event.name}: ${toolSummary(event.name, event.input)}`.slice(0, MAX_MESSAGE);
        tools.push(message);
        return [{ line: { entry: { type: 'tool_call', data }, status: { update: { message }, throttled: true } } }];
      }
      case 'tool_result': {
        const { kind: _, ...data } = event;
        return [{ line: { entry: { type: 'tool_result', data } } }];
      }
      case 'status': {
        const update = { message: event.message.slice(0, MAX_MESSAGE) };
        return [{ line: { entry: { type: 'status', data: update }, status: { update, throttled: false } } }];
      }
      case 'usage':
        usage = added(before, event);
        return [{ usage: { ...usage } }];
      case 'result':
        outcome =
          event.status === 'succeeded'
            ? { status: 'succeeded', message: event.message }
            : // Said by the CLI, and named as its, so a reader knows where it comes from.
              { status: 'failed', message: `${program} failed: ${event.message}`, error_code: 'agent_failed' };
        return [];
    }
  }
  return {
    decoder: { line: (text) => read(parser.line(text)), end: () => read(parser.end()) },
    get sessionId() {
      return sessionId;
    },
    get outcome() {
      return outcome;
    },
    get usage() {
      return usage;
    },
    tools,
  };
}

/** The totals before an invocation plus what it reports of its own so far. */
function added(before: UsageTotals, event: Extract<HarnessEvent, { kind: 'usage' }>): UsageTotals {
  const cost = event.cost_usd === undefined ? before.inference_cost_usd : (before.inference_cost_usd ?? 0) + event.cost_usd;
  return {
    input_tokens: before.input_tokens + (event.input_tokens ?? 0),
    output_tokens: before.output_tokens + (event.output_tokens ?? 0),
    ...(cost !== undefined ? { inference_cost_usd: cost } : {}),
  };
}

/** The run's usage as it stood when this execution began (`run.request_usage`). */
export function usageBefore(requestUsage: Readonly<Record<string, unknown>> | null | undefined): UsageTotals {
  const number = (key: string) => (typeof requestUsage?.[key] === 'number' ? (requestUsage[key] as number) : undefined);
  const cost = number('inference_cost_usd');
  return {
    input_tokens: number('input_tokens') ?? 0,
    output_tokens: number('output_tokens') ?? 0,
    ...(cost !== undefined ? { inference_cost_usd: cost } : {}),
  };
}

const firstLine = (text: string) => (text.trim().split('\n')[0] ?? '').slice(0, MAX_MESSAGE);
