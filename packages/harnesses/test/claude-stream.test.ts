import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claudeStreamParser } from '../src/claude/claude-stream.js';
import { type HarnessEvent, MAX_TOOL_TEXT } from '../src/harness.js';

// Recorded from the pinned Claude Code against the scripted model server (test/support/model-server):
// first: Bash, Write, a failing Bash, then "All done"; resume: a follow-up of that session; failed:
// the server answering 500s; notfound: a resume of a session that does not exist.
const fixture = (name: string): string[] =>
  readFileSync(new URL(`fixtures/claude-stream/${name}.jsonl`, import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean);

const parse = (lines: readonly string[]): HarnessEvent[] => {
  const parser = claudeStreamParser();
  return [...lines.flatMap((line) => parser.line(line)), ...parser.end()];
};

const kinds = (events: HarnessEvent[]) => events.map((e) => e.kind);

describe('claude stream-json, as recorded', () => {
  it('reads a turn of tool calls into the session, paired calls and results, usage and the final text', () => {
    const lines = fixture('first');
    const events = parse(lines);
    const init = JSON.parse(lines[0]!);
    expect(events[0]).toEqual({ kind: 'session', id: init.session_id });
    expect(kinds(events)).toEqual([
      'session',
      'tool_call',
      'tool_result',
      'tool_call',
      'tool_result',
      'tool_call',
      'tool_result',
      'text',
      'usage',
      'result',
    ]);
    const calls = events.filter((e) => e.kind === 'tool_call');
    const results = events.filter((e) => e.kind === 'tool_result');
    expect(calls.map((c) => c.name)).toEqual(['Bash', 'Write', 'Bash']);
    expect(calls[0]!.input).toMatchObject({ command: 'echo hi > from-shell.txt' });
    expect(calls[1]!.input).toMatchObject({ content: '# Notes\n' });
    expect(results.map((r) => r.call_id)).toEqual(calls.map((c) => c.call_id));
    expect(results.map((r) => r.name)).toEqual(['Bash', 'Write', 'Bash']);
    expect(results.map((r) => r.is_error)).toEqual([undefined, undefined, true]);
    expect(results[2]!.output).toContain('missing.txt');
    expect(events).toContainEqual({ kind: 'text', text: 'All done' });
    expect(events.at(-1)).toEqual({ kind: 'result', status: 'succeeded', message: 'All done' });
  });

  it('counts cached prompt tokens as input and takes the cost the line reports', () => {
    const lines = fixture('first');
    const result = JSON.parse(lines.at(-1)!);
    const usage = parse(lines).find((e) => e.kind === 'usage');
    const u = result.usage;
    expect(u.cache_read_input_tokens + u.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(usage).toEqual({
      kind: 'usage',
      input_tokens: u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens,
      output_tokens: u.output_tokens,
      cost_usd: result.total_cost_usd,
    });
  });

  it('gives a resumed turn the same session and only its own cost, not the session total', () => {
    const first = parse(fixture('first'));
    const lines = fixture('resume');
    const events = parse(lines);
    const result = JSON.parse(lines.at(-1)!);
    const own = Object.values(result.model_usage_since_last_result as Record<string, { costUSD: number }>)[0]!.costUSD;
    expect(events[0]).toEqual(first[0]);
    expect(own).toBeLessThan(result.total_cost_usd);
    expect(events.find((e) => e.kind === 'usage')).toMatchObject({ cost_usd: own });
    expect(events.at(-1)).toEqual({ kind: 'result', status: 'succeeded', message: 'Second turn done' });
  });

  it('reads an API failure as statuses (retries, the error) and a failed result, not as assistant text', () => {
    const events = parse(fixture('failed'));
    expect(events.some((e) => e.kind === 'text')).toBe(false);
    const statuses = events.filter((e) => e.kind === 'status').map((e) => e.message);
    expect(statuses.filter((s) => s.includes('retry'))).toHaveLength(2);
    const result = events.at(-1);
    expect(result).toMatchObject({ kind: 'result', status: 'failed' });
    expect(result?.kind === 'result' && result.message).toContain('500');
  });

  it("fails a resume of an unknown session with Claude Code's reason", () => {
    const events = parse(fixture('notfound'));
    expect(events.at(-1)).toEqual({
      kind: 'result',
      status: 'failed',
      message: 'No conversation found with session ID: 00000000-0000-4000-8000-000000000000',
    });
  });
});

describe('claude stream-json, edge cases', () => {
  const assistant = (content: unknown[]) => JSON.stringify({ type: 'assistant', message: { role: 'assistant', content } });
  const user = (content: unknown[]) => JSON.stringify({ type: 'user', message: { role: 'user', content } });

  it('reads a tool result given as content blocks, naming what is not text', () => {
    const events = parse([
      assistant([{ type: 'tool_use', id: 't1', name: 'mcp__probe__marker', input: {} }]),
      user([
        {
          type: 'tool_result',
          tool_use_id: 't1',
          content: [{ type: 'text', text: 'one' }, { type: 'image' }, { type: 'text', text: 'two' }],
        },
      ]),
    ]);
    expect(events.at(-1)).toEqual({ kind: 'tool_result', call_id: 't1', name: 'mcp__probe__marker', output: 'one\n[image]\ntwo' });
  });

  it('keeps a line that is not JSON as a status and ignores blank lines and thinking', () => {
    expect(parse(['Error: something odd'])).toEqual([{ kind: 'status', message: 'Error: something odd' }]);
    expect(parse(['', '   '])).toEqual([]);
    expect(parse([assistant([{ type: 'thinking', thinking: 'hmm' }])])).toEqual([]);
  });

  it('says why a result without text failed', () => {
    const result = parse([JSON.stringify({ type: 'result', subtype: 'error_max_turns', is_error: true, session_id: 's' })]).at(-1);
    expect(result).toEqual({ kind: 'result', status: 'failed', message: 'Claude Code stopped: the turn limit was reached.' });
    const errored = parse([JSON.stringify({ type: 'result', subtype: 'success', is_error: true, result: 'API Error: boom' })]).at(-1);
    expect(errored).toEqual({ kind: 'result', status: 'failed', message: 'API Error: boom' });
  });

  it('bounds a long tool input and output by MAX_TOOL_TEXT', () => {
    const long = 'x'.repeat(MAX_TOOL_TEXT * 2);
    const [call, result] = parse([
      assistant([{ type: 'tool_use', id: 't', name: 'Write', input: { file_path: '/a', content: long } }]),
      user([{ type: 'tool_result', tool_use_id: 't', content: long }]),
    ]);
    expect(typeof (call as { input: unknown }).input).toBe('string');
    expect(((call as { input: string }).input as string).length).toBeLessThanOrEqual(MAX_TOOL_TEXT);
    expect((result as { output: string }).output.length).toBeLessThanOrEqual(MAX_TOOL_TEXT);
    expect((result as { output: string }).output.startsWith('xxx')).toBe(true);
  });
});

/** Every event's own text within the bound: tool input (as JSON), tool output, status. */
const bounded = (event: HarnessEvent): boolean => {
  switch (event.kind) {
    case 'tool_call':
      return (typeof event.input === 'string' ? event.input : JSON.stringify(event.input)).length <= MAX_TOOL_TEXT;
    case 'tool_result':
      return event.output.length <= MAX_TOOL_TEXT;
    case 'status':
      return event.message.length <= MAX_TOOL_TEXT;
    default:
      return true;
  }
};

// Mostly short strings; now and then one about the bound, in graphemes (surrogate pairs included).
const bigString = fc.oneof(
  { arbitrary: fc.string(), weight: 5 },
  { arbitrary: fc.string({ minLength: MAX_TOOL_TEXT - 5, maxLength: MAX_TOOL_TEXT + 50, unit: 'grapheme' }), weight: 1 },
);
const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text: bigString }),
  fc.record({
    type: fc.constant('tool_use'),
    id: fc.string(),
    name: fc.string(),
    input: fc.oneof(fc.jsonValue(), fc.record({ content: bigString })),
  }),
  fc.record({
    type: fc.constant('tool_result'),
    tool_use_id: fc.string(),
    content: fc.oneof(
      bigString,
      fc.array(fc.record({ type: fc.constantFrom('text', 'image'), text: bigString }), { maxLength: 3 }),
      fc.jsonValue(),
    ),
    is_error: fc.oneof(fc.boolean(), fc.jsonValue()),
  }),
  fc.jsonValue(),
);
const streamLine = fc.oneof(
  fc.string(),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc
    .record(
      {
        type: fc.constantFrom('system', 'assistant', 'user', 'result', 'stream_event', 'other'),
        subtype: fc.constantFrom('init', 'api_retry', 'success', 'error_max_turns', 'error_during_execution'),
        session_id: fc.oneof(fc.string(), fc.jsonValue()),
        message: fc.record({ content: fc.oneof(fc.array(block, { maxLength: 4 }), fc.jsonValue()) }),
        is_error: fc.oneof(fc.boolean(), fc.jsonValue()),
        is_api_error_message: fc.boolean(),
        result: fc.oneof(bigString, fc.jsonValue()),
        usage: fc.jsonValue(),
        errors: fc.jsonValue(),
      },
      { requiredKeys: ['type'] },
    )
    .map((v) => JSON.stringify(v)),
);

describe('claude stream-json, properties', () => {
  it('never throws on any lines, keeps every text within MAX_TOOL_TEXT and names at most one session', () => {
    fc.assert(
      fc.property(fc.array(streamLine, { maxLength: 12 }), (lines) => {
        const events = parse(lines);
        expect(events.every(bounded)).toBe(true);
        expect(events.filter((e) => e.kind === 'session').length).toBeLessThanOrEqual(1);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps a tool output whole up to the bound, and a prefix of it beyond', () => {
    fc.assert(
      fc.property(bigString, (output) => {
        const [event] = parse([
          JSON.stringify({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 'id', content: output }] } }),
        ]);
        const kept = (event as { output: string }).output;
        if (output.length <= MAX_TOOL_TEXT) expect(kept).toBe(output);
        else expect(output.startsWith(kept.slice(0, kept.lastIndexOf('…')))).toBe(true);
      }),
    );
  });

  it('succeeds a result exactly when Claude Code says success without error', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('success', 'error_max_turns', 'error_during_execution', 'other'),
        fc.jsonValue(),
        fc.string(),
        (subtype, isError, text) => {
          const [result] = parse([JSON.stringify({ type: 'result', subtype, is_error: isError, result: text })]).filter(
            (e) => e.kind === 'result',
          );
          const succeeded = subtype === 'success' && isError === false;
          expect(result).toMatchObject({ kind: 'result', status: succeeded ? 'succeeded' : 'failed' });
          if (succeeded) expect(result).toMatchObject({ message: text });
          else expect((result as { message: string }).message).not.toBe('');
        },
      ),
    );
  });
});
