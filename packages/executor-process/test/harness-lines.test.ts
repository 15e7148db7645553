import type { HarnessEvent, HarnessParser } from '@agentrun/harnesses';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { harnessLines, usageBefore } from '../src/harness-lines.js';

/** A parser that reads each line as the JSON array of events it holds. */
const scripted: HarnessParser = { line: (text) => JSON.parse(text) as HarnessEvent[], end: () => [] };
const line = (...events: HarnessEvent[]) => JSON.stringify(events);

describe('harnessLines: a CLI stream as the run takes it (docs/harnesses.md, "The transcript")', () => {
  it('makes the session a status event that sets session_id, text an output event, tool calls and results events of their own', () => {
    const lines = harnessLines(scripted, usageBefore(undefined), 'claude');
    const decoded = lines.decoder.line(
      line(
        { kind: 'session', id: 's-1' },
        { kind: 'text', text: 'Looking\nat it' },
        { kind: 'tool_call', call_id: 'c1', name: 'Bash', input: { command: 'ls -la' } },
        { kind: 'tool_result', call_id: 'c1', name: 'Bash', output: 'total 0', is_error: false },
        { kind: 'text', text: '   ' },
      ),
    );
    expect(decoded).toEqual([
      {
        line: {
          entry: { type: 'status', data: { message: 'Session started', session_id: 's-1' } },
          status: expect.objectContaining({ throttled: false }),
        },
      },
      {
        line: { entry: { type: 'output', data: { text: 'Looking\nat it' } }, status: { update: { message: 'Looking' }, throttled: true } },
      },
      {
        line: {
          entry: { type: 'tool_call', data: { call_id: 'c1', name: 'Bash', input: { command: 'ls -la' } } },
          status: { update: { message: 'Bash: ls -la' }, throttled: true },
        },
      },
      { line: { entry: { type: 'tool_result', data: { call_id: 'c1', name: 'Bash', output: 'total 0', is_error: false } } } },
    ]);
    expect(lines.sessionId).toBe('s-1');
    expect(lines.tools).toEqual(['Bash: ls -la']);
    expect(lines.outcome).toBeUndefined();
  });

  it('keeps the outcome aside: the final text, or the failure named as the CLI’s', () => {
    const ok = harnessLines(scripted, usageBefore(undefined), 'codex');
    expect(ok.decoder.line(line({ kind: 'result', status: 'succeeded', message: 'All done' }))).toEqual([]);
    expect(ok.outcome).toEqual({ status: 'succeeded', message: 'All done' });
    const failed = harnessLines(scripted, usageBefore(undefined), 'codex');
    failed.decoder.line(line({ kind: 'result', status: 'failed', message: 'Connection failed' }));
    expect(failed.outcome).toEqual({ status: 'failed', message: 'codex failed: Connection failed', error_code: 'agent_failed' });
  });

  it("adds an invocation's usage (its totals so far) to the run's before it, and reports the sum", () => {
    fc.assert(
      fc.property(
        fc.record({
          input_tokens: fc.nat(1e6),
          output_tokens: fc.nat(1e6),
          inference_cost_usd: fc.option(fc.double({ min: 0, max: 100, noNaN: true }), { nil: undefined }),
        }),
        fc.array(fc.record({ input_tokens: fc.nat(1e6), output_tokens: fc.nat(1e6) }), { minLength: 1, maxLength: 5 }),
        (before, reports) => {
          const lines = harnessLines(scripted, usageBefore(before), 'gemini');
          let reported: unknown;
          for (const r of reports) reported = lines.decoder.line(line({ kind: 'usage', ...r }))[0];
          const last = reports.at(-1) as { input_tokens: number; output_tokens: number };
          const sum = { input_tokens: before.input_tokens + last.input_tokens, output_tokens: before.output_tokens + last.output_tokens };
          expect(lines.usage).toMatchObject(sum);
          expect(reported).toEqual({ usage: lines.usage });
          if (before.inference_cost_usd !== undefined) expect(lines.usage?.inference_cost_usd).toBe(before.inference_cost_usd);
        },
      ),
    );
  });

  it('reports no usage while the CLI told none', () => {
    const lines = harnessLines(scripted, usageBefore({ input_tokens: 5 }), 'claude');
    lines.decoder.line(line({ kind: 'text', text: 'hi' }));
    expect(lines.usage).toBeUndefined();
  });
});
