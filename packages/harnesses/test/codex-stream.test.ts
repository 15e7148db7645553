import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clip, codexParser } from '../src/codex/codex-stream.js';
import { type HarnessEvent, MAX_TOOL_TEXT } from '../src/index.js';

/** Lines `codex exec --json` 0.171 printed against the scripted model server (workspace path shortened). */
const fixture = (name: string): string[] =>
  readFileSync(new URL(`fixtures/codex/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean);

const parse = (lines: readonly string[]): HarnessEvent[] => {
  const parser = codexParser();
  return [...lines.flatMap((line) => parser.line(line)), ...parser.end()];
};

const line = (event: unknown): string => JSON.stringify(event);

describe('codexParser on recorded streams', () => {
  it('reads a turn with commands, file changes, an MCP call and a final message', () => {
    expect(parse(fixture('succeeded.jsonl'))).toEqual([
      { kind: 'session', id: '01a2236d-84ce-75d1-9242-1b6b6bcb499e' },
      { kind: 'tool_call', call_id: 'item_1', name: 'shell', input: { command: "/bin/bash -lc 'ls -a'" } },
      { kind: 'tool_result', call_id: 'item_1', name: 'shell', output: '.\n..\n' },
      { kind: 'tool_call', call_id: 'item_2', name: 'shell', input: { command: "/bin/bash -lc 'echo oops >&2; exit 3'" } },
      { kind: 'tool_result', call_id: 'item_2', name: 'shell', output: 'oops\n', is_error: true },
      { kind: 'tool_call', call_id: 'item_3', name: 'apply_patch', input: { changes: [{ path: '/run/workspace/notes.md', kind: 'add' }] } },
      { kind: 'tool_result', call_id: 'item_3', name: 'apply_patch', output: 'add /run/workspace/notes.md' },
      {
        kind: 'tool_call',
        call_id: 'item_4',
        name: 'apply_patch',
        input: { changes: [{ path: '/run/workspace/notes.md', kind: 'update' }] },
      },
      { kind: 'tool_result', call_id: 'item_4', name: 'apply_patch', output: 'update /run/workspace/notes.md' },
      { kind: 'tool_call', call_id: 'item_5', name: 'mcp__echo__echo', input: { text: 'hello' } },
      { kind: 'tool_result', call_id: 'item_5', name: 'mcp__echo__echo', output: 'echo: hello' },
      { kind: 'text', text: 'Looked, wrote notes.md and asked echo.' },
      { kind: 'usage', input_tokens: 60, output_tokens: 12 },
      { kind: 'result', status: 'succeeded', message: 'Looked, wrote notes.md and asked echo.' },
    ]);
  });

  it('reads retries as status notes and turn.failed as the failed result', () => {
    const events = parse(fixture('failed.jsonl'));
    expect(events[0]).toEqual({ kind: 'session', id: '01a2236d-abac-7a30-9781-c8a1bf1a355f' });
    expect(events.filter((e) => e.kind === 'status')).toHaveLength(3);
    expect(events.at(-1)).toEqual({
      kind: 'result',
      status: 'failed',
      message: 'stream disconnected before completion: stream closed before response.completed',
    });
  });
});

describe('codexParser', () => {
  it('gives a call reported only on completion its tool_call first, and never twice', () => {
    const completed = line({
      type: 'item.completed',
      item: {
        id: 'item_7',
        type: 'mcp_tool_call',
        server: 's',
        tool: 't',
        arguments: {},
        result: null,
        error: { message: 'boom' },
        status: 'failed',
      },
    });
    expect(parse([completed, completed])).toEqual([
      { kind: 'tool_call', call_id: 'item_7', name: 'mcp__s__t', input: {} },
      { kind: 'tool_result', call_id: 'item_7', name: 'mcp__s__t', output: 'boom', is_error: true },
    ]);
  });

  it('closes calls the stream never completed when it ends', () => {
    const started = line({
      type: 'item.started',
      item: { id: 'item_0', type: 'command_execution', command: 'sleep 9', aggregated_output: '', exit_code: null, status: 'in_progress' },
    });
    expect(parse([started]).at(-1)).toEqual({
      kind: 'tool_result',
      call_id: 'item_0',
      name: 'shell',
      output: 'The tool call did not complete.',
      is_error: true,
    });
  });

  it('succeeds with the last agent message, or with nothing said', () => {
    const message = (text: string) => line({ type: 'item.completed', item: { id: text, type: 'agent_message', text } });
    const done = line({ type: 'turn.completed', usage: { input_tokens: 1, output_tokens: 2 } });
    expect(parse([message('first'), message('last'), done]).at(-1)).toEqual({ kind: 'result', status: 'succeeded', message: 'last' });
    expect(parse([done]).at(-1)).toEqual({ kind: 'result', status: 'succeeded', message: '' });
  });

  it('keeps MCP content that is not text as JSON', () => {
    const item = { id: 'i', type: 'mcp_tool_call', server: 's', tool: 't', arguments: { a: 1 }, error: null, status: 'completed' };
    const result = { content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }], structured_content: null };
    const events = parse([line({ type: 'item.completed', item: { ...item, result } })]);
    expect(events[1]).toMatchObject({ kind: 'tool_result', output: JSON.stringify(result.content) });
  });

  it('reports only thread ids that cannot read as an option', () => {
    const started = (id: unknown) => line({ type: 'thread.started', thread_id: id });
    expect(parse([started('--last'), started(''), started(7), started('01a2236d-84ce')])).toEqual([
      { kind: 'session', id: '01a2236d-84ce' },
    ]);
  });

  it('ignores lines that are not events, and events after the turn ended', () => {
    const done = line({ type: 'turn.completed', usage: {} });
    const after = line({ type: 'item.completed', item: { id: 'x', type: 'agent_message', text: 'late' } });
    expect(parse(['', 'Reading additional input from stdin...', '{"type":', '[1,2]', 'null', done, after])).toEqual([
      { kind: 'result', status: 'succeeded', message: '' },
    ]);
  });
});

/** Events shaped like Codex's, with arbitrary (and wrong-typed) values where Codex puts strings. */
const long = fc
  .tuple(fc.string({ minLength: 1, maxLength: 2 }), fc.integer({ min: MAX_TOOL_TEXT - 4, max: MAX_TOOL_TEXT + 20 }))
  .map(([unit, n]) => unit.repeat(n));
const anyValue = fc.oneof(
  { arbitrary: fc.string(), weight: 4 },
  { arbitrary: long, weight: 2 },
  { arbitrary: fc.oneof(fc.integer(), fc.constant(null), fc.dictionary(fc.string(), fc.string())), weight: 2 },
);
const codexLikeEvent = fc.record({
  type: fc.constantFrom(
    'thread.started',
    'turn.started',
    'item.started',
    'item.completed',
    'item.updated',
    'turn.completed',
    'turn.failed',
    'error',
    'other',
  ),
  thread_id: anyValue,
  message: anyValue,
  error: fc.oneof(anyValue, fc.record({ message: anyValue })),
  usage: fc.oneof(anyValue, fc.record({ input_tokens: anyValue, output_tokens: anyValue })),
  item: fc.oneof(
    anyValue,
    fc.record(
      {
        id: fc.oneof(fc.constantFrom('item_0', 'item_1'), anyValue),
        type: fc.constantFrom(
          'command_execution',
          'file_change',
          'mcp_tool_call',
          'web_search',
          'agent_message',
          'reasoning',
          'error',
          'todo_list',
        ),
        command: anyValue,
        aggregated_output: anyValue,
        exit_code: anyValue,
        status: fc.constantFrom('in_progress', 'completed', 'failed', 'declined'),
        changes: fc.oneof(anyValue, fc.array(fc.record({ path: anyValue, kind: anyValue }))),
        server: anyValue,
        tool: anyValue,
        arguments: anyValue,
        result: fc.oneof(anyValue, fc.record({ content: fc.array(fc.record({ type: fc.constantFrom('text', 'image'), text: anyValue })) })),
        text: anyValue,
        query: anyValue,
      },
      { requiredKeys: ['type'] },
    ),
  ),
});
const anyLine = fc.oneof(
  fc.string(),
  fc.json(),
  codexLikeEvent.map((e) => JSON.stringify(e)),
);

describe('clip', () => {
  it('keeps short text, and cuts long text to MAX_TOOL_TEXT without splitting a character', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), long, fc.constant(`${'a'.repeat(MAX_TOOL_TEXT - 2)}😀😀`)), (text) => {
        const kept = clip(text);
        if (text.length <= MAX_TOOL_TEXT) expect(kept).toBe(text);
        else {
          expect(kept.length).toBeLessThanOrEqual(MAX_TOOL_TEXT);
          expect(kept.endsWith('…')).toBe(true);
          expect(text.startsWith(kept.slice(0, -1))).toBe(true);
          expect(kept).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
        }
      }),
    );
  });

  it('bounds the output of a command in its tool_result', () => {
    const item = {
      id: 'i',
      type: 'command_execution',
      command: 'yes',
      aggregated_output: 'y\n'.repeat(MAX_TOOL_TEXT),
      exit_code: 0,
      status: 'completed',
    };
    const [, result] = parse([line({ type: 'item.completed', item })]);
    expect(result).toMatchObject({ kind: 'tool_result', output: clip(item.aggregated_output) });
    expect(result?.kind === 'tool_result' && result.output.length).toBe(MAX_TOOL_TEXT);
  });
});

describe('codexParser on arbitrary lines', () => {
  it('never throws, bounds tool text, pairs every call with one result, and ends with at most one result', () => {
    fc.assert(
      fc.property(fc.array(anyLine, { maxLength: 20 }), (lines) => {
        const events = parse(lines);
        const calls = events.filter((e) => e.kind === 'tool_call');
        const results = events.filter((e) => e.kind === 'tool_result');
        // An input too long as JSON is kept as that JSON, cut short.
        for (const { input } of calls)
          expect(typeof input === 'string' ? input.length : JSON.stringify(input).length).toBeLessThanOrEqual(MAX_TOOL_TEXT);
        for (const result of results) expect(result.output.length).toBeLessThanOrEqual(MAX_TOOL_TEXT);
        expect(results.map((r) => r.call_id).sort()).toEqual(calls.map((c) => c.call_id).sort());
        expect(events.filter((e) => e.kind === 'result').length).toBeLessThanOrEqual(1);
        for (const e of events) if (e.kind === 'session') expect(e.id).toMatch(/^[0-9a-zA-Z][0-9a-zA-Z_-]*$/);
      }),
      { numRuns: 200 },
    );
  });
});
