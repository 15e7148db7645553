import type { RunEvent } from '@agentrun/client';
import { describe, expect, it } from 'vitest';
import { transcriptItems } from '../src/app/transcript-items.js';

// How the run page's transcript turns its events into lines and tool blocks (no browser).

describe('transcriptItems', () => {
  let id = 0;
  const event = (type: string, data: unknown): RunEvent => ({ id: ++id, at: '2026-11-28T10:00:00.000Z', type, data }) as RunEvent;

  it('joins each result to its call, in order with the other events; an unknown call’s result stands alone', () => {
    const events = [
      event('output', { text: 'Looking around' }),
      event('tool_call', { call_id: 'a', name: 'Bash', input: { command: 'ls' } }),
      event('tool_result', { call_id: 'zzz', output: 'from a call never seen', is_error: true }),
      event('tool_call', { call_id: 'b', name: 'Read', input: { file_path: 'x' } }),
      event('tool_result', { call_id: 'a', name: 'Bash', output: 'README.md' }),
      event('output', { text: 'Done' }),
    ];
    const items = transcriptItems(events);
    expect(
      items.map((item) => (item.kind === 'event' ? item.event.type : `tool ${item.call?.call_id ?? `result ${item.result?.call_id}`}`)),
    ).toEqual(['output', 'tool a', 'tool result zzz', 'tool b', 'output']);
    expect(items[1]).toMatchObject({ kind: 'tool', id: events[1]?.id, result: { output: 'README.md', is_error: false, truncated: false } });
    expect(items[2]).toMatchObject({ kind: 'tool', result: { call_id: 'zzz', is_error: true } });
    expect(items[3]).toMatchObject({ kind: 'tool', call: { name: 'Read' } });
    expect(items[3]).not.toHaveProperty('result');
  });

  it('pairs a repeated call id with the latest call still waiting; a second result for a call stands alone', () => {
    const items = transcriptItems([
      event('tool_call', { call_id: 'r', name: 'Bash', input: { command: 'one' } }),
      event('tool_result', { call_id: 'r', output: '1' }),
      event('tool_result', { call_id: 'r', output: 'again' }),
      event('tool_call', { call_id: 'r', name: 'Bash', input: { command: 'two' } }),
      event('tool_result', { call_id: 'r', output: '2', truncated: true }),
    ]);
    expect(items).toHaveLength(3);
    expect(items[0]).toMatchObject({ call: { input: { command: 'one' } }, result: { output: '1' } });
    expect(items[1]).toMatchObject({ result: { output: 'again' } });
    expect(items[1]).not.toHaveProperty('call');
    expect(items[2]).toMatchObject({ call: { input: { command: 'two' } }, result: { output: '2', truncated: true } });
  });

  it('keeps a tool event whose data is not of its shape as a plain line', () => {
    const items = transcriptItems([event('tool_call', { name: 'Bash' }), event('tool_result', 'text')]);
    expect(items.map((item) => item.kind)).toEqual(['event', 'event']);
  });
});
