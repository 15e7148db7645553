import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { geminiStreamParser } from '../src/gemini/gemini-stream.js';
import { type HarnessEvent, MAX_TOOL_TEXT } from '../src/harness.js';

// Gemini CLI 0.61's `--output-format stream-json` read into agentrun's events (docs/harnesses.md,
// "Gemini CLI"). The fixtures are the CLI's own stdout against the scripted model server.

const fixture = (name: string): string[] => readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8').split('\n');

const readAll = (lines: readonly string[]): HarnessEvent[] => {
  const parser = geminiStreamParser();
  return [...lines.flatMap((line) => parser.line(line)), ...parser.end()];
};

const line = (value: object): string => JSON.stringify(value);

describe('geminiStreamParser on recorded turns', () => {
  it('reads a turn of a shell call, a refused write, a write and a final text', () => {
    const events = readAll(fixture('gemini-turn.jsonl'));
    expect(events).toEqual([
      { kind: 'session', id: '353ff6d9-c828-4ad0-8020-10c566c35318' },
      {
        kind: 'tool_call',
        call_id: 'run_shell_command__run_shell_command_1795890774572_0',
        name: 'run_shell_command',
        input: { command: 'echo hi > from-shell.txt; echo printed' },
      },
      {
        kind: 'tool_result',
        call_id: 'run_shell_command__run_shell_command_1795890774572_0',
        name: 'run_shell_command',
        output: 'printed',
      },
      {
        kind: 'tool_call',
        call_id: 'write_file__write_file_1795890775604_0',
        name: 'write_file',
        input: { file_path: '/etc/outside.md', content: 'x' },
      },
      {
        kind: 'tool_result',
        call_id: 'write_file__write_file_1795890775604_0',
        name: 'write_file',
        output: expect.stringContaining('Path not in workspace'),
        is_error: true,
      },
      {
        kind: 'tool_call',
        call_id: 'write_file__write_file_1795890775780_0',
        name: 'write_file',
        input: { file_path: 'notes.md', content: '# Notes\n' },
      },
      // A write's result has no text in the stream (the CLI shows it as a diff).
      { kind: 'tool_result', call_id: 'write_file__write_file_1795890775780_0', name: 'write_file', output: '' },
      { kind: 'text', text: 'All done' },
      { kind: 'usage', input_tokens: 41784, output_tokens: 44 },
      { kind: 'result', status: 'succeeded', message: 'All done' },
    ]);
  });

  it('fails the turn with the API error when the model cannot be reached', () => {
    expect(readAll(fixture('gemini-unreachable.jsonl')).at(-1)).toEqual({
      kind: 'result',
      status: 'failed',
      message: '[API Error: exception TypeError: fetch failed sending request]',
    });
  });

  it('fails the turn with the error event before a result that has none', () => {
    const events = readAll(fixture('gemini-empty-answer.jsonl'));
    const why = 'The model returned an empty response with no text or thoughts. This may be a transient API issue; please try again.';
    expect(events.filter((e) => e.kind === 'status')).toEqual([{ kind: 'status', message: why }]);
    expect(events.at(-1)).toEqual({ kind: 'result', status: 'failed', message: why });
  });
});

describe('geminiStreamParser', () => {
  it('joins streamed pieces into one text per message, the last before the result being the answer', () => {
    const events = readAll([
      line({ type: 'message', role: 'assistant', content: 'Let me ', delta: true }),
      line({ type: 'message', role: 'assistant', content: 'look.', delta: true }),
      line({ type: 'tool_use', tool_name: 'read_file', tool_id: 'c1', parameters: { file_path: 'a' } }),
      line({ type: 'tool_result', tool_id: 'c1', status: 'success', output: 'A' }),
      line({ type: 'message', role: 'assistant', content: 'It says ', delta: true }),
      line({ type: 'message', role: 'assistant', content: 'A.', delta: true }),
      line({ type: 'result', status: 'success', stats: { input_tokens: 5, output_tokens: 2 } }),
    ]);
    expect(events.filter((e) => e.kind === 'text')).toEqual([
      { kind: 'text', text: 'Let me look.' },
      { kind: 'text', text: 'It says A.' },
    ]);
    expect(events.at(-1)).toEqual({ kind: 'result', status: 'succeeded', message: 'It says A.' });
  });

  it('has no final text when the last model turn only called tools', () => {
    const events = readAll([
      line({ type: 'message', role: 'assistant', content: 'Working on it', delta: true }),
      line({ type: 'tool_use', tool_name: 'run_shell_command', tool_id: 'c1', parameters: { command: 'true' } }),
      line({ type: 'result', status: 'success', stats: {} }),
    ]);
    expect(events.at(-1)).toEqual({ kind: 'result', status: 'succeeded', message: '' });
  });

  it('gives text still streaming when stdout ends, and no result', () => {
    const parser = geminiStreamParser();
    expect(parser.line(line({ type: 'message', role: 'assistant', content: 'half', delta: true }))).toEqual([]);
    expect(parser.end()).toEqual([{ kind: 'text', text: 'half' }]);
  });

  it('does not take the echoed prompt, warnings or other lines for the answer', () => {
    const events = readAll([
      'Loaded cached credentials.',
      '',
      line({ type: 'message', role: 'user', content: 'do it' }),
      line({ type: 'error', severity: 'warning', message: 'Loop detected, stopping execution' }),
      line({ type: 'result', status: 'error', stats: {} }),
    ]);
    expect(events).toEqual([
      { kind: 'status', message: 'Loop detected, stopping execution' },
      { kind: 'result', status: 'failed', message: 'Gemini CLI ended the turn with an error' },
    ]);
  });

  it('gives a failed tool its error message when it has no output', () => {
    const events = readAll([line({ type: 'tool_result', tool_id: 'x', status: 'error', error: { type: 'e', message: 'denied' } })]);
    expect(events).toEqual([{ kind: 'tool_result', call_id: 'x', output: 'denied', is_error: true }]);
  });

  it('cuts long tool inputs and outputs to MAX_TOOL_TEXT', () => {
    const long = 'x'.repeat(MAX_TOOL_TEXT * 2);
    const [call, result] = readAll([
      line({ type: 'tool_use', tool_name: 'write_file', tool_id: 'w', parameters: { content: long } }),
      line({ type: 'tool_result', tool_id: 'w', status: 'success', output: long }),
    ]);
    expect(call).toMatchObject({ kind: 'tool_call', input: expect.stringMatching(/^\{"content":"x+… \[truncated\]$/) });
    expect((call as { input: string }).input).toHaveLength(MAX_TOOL_TEXT);
    expect((result as { output: string }).output).toHaveLength(MAX_TOOL_TEXT);
  });
});

describe('geminiStreamParser properties', () => {
  /** Strings about MAX_TOOL_TEXT long, cheaply. */
  const nearMax = fc.integer({ min: MAX_TOOL_TEXT - 8, max: MAX_TOOL_TEXT + 8 }).map((n) => 'y'.repeat(n));
  const streamLine = fc.oneof(
    fc.string(),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc
      .record({
        type: fc.constantFrom('init', 'message', 'tool_use', 'tool_result', 'error', 'result', 'other'),
        session_id: fc.anything(),
        role: fc.constantFrom('assistant', 'user', 7),
        content: fc.oneof(fc.string(), fc.anything()),
        delta: fc.oneof(fc.boolean(), fc.anything()),
        tool_name: fc.anything(),
        tool_id: fc.oneof(fc.string(), fc.anything()),
        parameters: fc.oneof(fc.jsonValue(), nearMax, fc.record({ content: nearMax })),
        status: fc.constantFrom('success', 'error', undefined, 3),
        output: fc.oneof(fc.string(), nearMax),
        error: fc.oneof(fc.anything(), fc.record({ message: nearMax })),
        severity: fc.constantFrom('warning', 'error', undefined),
        message: fc.oneof(fc.string(), nearMax, fc.anything()),
        stats: fc.anything(),
      })
      .map((v) => JSON.stringify(v)),
  );

  it('never throws; tool texts, statuses and failures stay within MAX_TOOL_TEXT; an answer is a text given', () => {
    fc.assert(
      fc.property(fc.array(streamLine, { maxLength: 20 }), (lines) => {
        const events = readAll(lines);
        const texts = new Set(['', ...events.flatMap((e) => (e.kind === 'text' ? [e.text] : []))]);
        for (const event of events) {
          if (event.kind === 'tool_call') {
            const size = typeof event.input === 'string' ? event.input.length : JSON.stringify(event.input).length;
            expect(size).toBeLessThanOrEqual(MAX_TOOL_TEXT);
          }
          if (event.kind === 'tool_result') expect(event.output.length).toBeLessThanOrEqual(MAX_TOOL_TEXT);
          if (event.kind === 'status') expect(event.message.length).toBeLessThanOrEqual(MAX_TOOL_TEXT);
          if (event.kind === 'result' && event.status === 'failed') {
            expect(event.message.length).toBeLessThanOrEqual(MAX_TOOL_TEXT);
          }
          if (event.kind === 'result' && event.status === 'succeeded') expect(texts.has(event.message)).toBe(true);
        }
      }),
    );
  });

  it('gives the streamed text whole however the CLI cut it into pieces', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 10 }), (pieces) => {
        const lines = pieces.map((content) => line({ type: 'message', role: 'assistant', content, delta: true }));
        const events = readAll([...lines, line({ type: 'result', status: 'success', stats: {} })]);
        expect(events).toEqual([
          { kind: 'text', text: pieces.join('') },
          { kind: 'result', status: 'succeeded', message: pieces.join('') },
        ]);
      }),
    );
  });
});
