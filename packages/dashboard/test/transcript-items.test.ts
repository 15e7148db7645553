import type { RunEvent } from '@agentrun/client';
import { describe, expect, it } from 'vitest';
import { formatDuration, liveState, runWorker, transcriptItems } from '../src/app/transcript-items.js';

// How the run page's timeline turns its events into lines, changes of state, artifacts and tool
// blocks, and reads the run's live state and worker from them (no browser).

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
      items.map((item) =>
        item.kind === 'event'
          ? item.event.type
          : item.kind === 'tool'
            ? `tool ${item.call?.call_id ?? `result ${item.result?.call_id}`}`
            : item.kind,
      ),
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

  const at = (second: number) => `2026-11-28T10:00:${String(second).padStart(2, '0')}.000Z`;
  const timed = (type: string, second: number, data: unknown): RunEvent => ({ id: ++id, at: at(second), type, data }) as RunEvent;

  it('makes each change of state an item with how long after the change before it came', () => {
    const items = transcriptItems([
      timed('state', 1, { from: 'QUEUED', to: 'CLAIMED', status_message: null }),
      timed('state', 2, { from: 'CLAIMED', to: 'INPROGRESS', status_message: 'Started' }),
      timed('output', 5, { text: 'working' }),
      timed('state', 14, { from: 'INPROGRESS', to: 'SUCCEEDED', status_message: '' }),
      timed('state', 15, { to: 42 }),
    ]);
    expect(items.map((item) => item.kind)).toEqual(['state', 'state', 'event', 'state', 'event']);
    expect(items[0]).toMatchObject({ from: 'QUEUED', to: 'CLAIMED', message: null, afterMs: null });
    expect(items[1]).toMatchObject({ from: 'CLAIMED', to: 'INPROGRESS', message: 'Started', afterMs: 1000 });
    expect(items[3]).toMatchObject({ to: 'SUCCEEDED', message: null, afterMs: 12_000 });
  });

  it('makes each artifact of a known shape an item; another stays a line', () => {
    const pr = { artifact_type: 'PULL_REQUEST', created_at: at(3), data: { url: 'https://github.com/a/b/pull/1', branch: 'fix' } };
    const shot = { artifact_type: 'SCREENSHOT', created_at: at(3), data: { artifact_uid: 'u1', mime_type: 'image/png' } };
    const plan = { artifact_type: 'PLAN', created_at: at(3), data: { document_uid: 'd', artifact_uid: 'u2', title: 'Plan' } };
    const file = {
      artifact_type: 'FILE',
      created_at: at(3),
      data: { artifact_uid: 'u3', filename: 'r.txt', filepath: 'out/r.txt', mime_type: 'text/plain' },
    };
    const items = transcriptItems([
      timed('artifact', 3, pr),
      timed('artifact', 3, shot),
      timed('artifact', 3, plan),
      timed('artifact', 3, file),
      timed('artifact', 3, { artifact_type: 'VIDEO', created_at: at(3), data: {} }),
      timed('artifact', 3, { artifact_type: 'FILE', created_at: at(3), data: { artifact_uid: 'u4' } }),
      timed('artifact', 3, { artifact_type: 'toString', data: {} }),
    ]);
    expect(items.map((item) => (item.kind === 'artifact' ? item.artifact.artifact_type : item.kind))).toEqual([
      'PULL_REQUEST',
      'SCREENSHOT',
      'PLAN',
      'FILE',
      'event',
      'event',
      'event',
    ]);
    expect(items[2]).toMatchObject({ kind: 'artifact', artifact: plan });
  });

  it('tells the live state: the last state event when it is newer than the run as read, else the run’s', () => {
    const run = { state: 'INPROGRESS', updated_at: at(10) };
    const replayed = [timed('state', 1, { from: 'QUEUED', to: 'CLAIMED' }), timed('state', 2, { from: 'CLAIMED', to: 'INPROGRESS' })];
    expect(liveState([], run)).toBe('INPROGRESS');
    // Replaying older events does not show a state the run has left.
    expect(liveState(replayed.slice(0, 1), run)).toBe('INPROGRESS');
    // A change after the read shows at once.
    const live = [...replayed, timed('output', 11, { text: 'x' }), timed('state', 12, { from: 'INPROGRESS', to: 'SUCCEEDED' })];
    expect(liveState(live, run)).toBe('SUCCEEDED');
    expect(liveState([...live, timed('state', 13, { bad: true })], run)).toBe('SUCCEEDED');
  });

  it('reads the worker that last started the run from the status its start left', () => {
    expect(runWorker([timed('state', 1, { from: 'CLAIMED', to: 'INPROGRESS', status_message: 'Started' })])).toBeUndefined();
    const worker = runWorker([
      timed('state', 1, { from: 'QUEUED', to: 'INPROGRESS', status_message: 'Started on worker w1 (host alpha)' }),
      timed('state', 2, { from: 'SUCCEEDED', to: 'QUEUED', status_message: null }),
      timed('state', 3, { from: 'QUEUED', to: 'INPROGRESS', status_message: 'Started on worker w (2) (host beta (eu))' }),
      timed('status', 4, { message: 'Started on worker w9 (host gamma)' }),
      timed('state', 5, { from: 'INPROGRESS', to: 'SUCCEEDED', status_message: 'done' }),
    ]);
    expect(worker).toEqual({ id: 'w (2)', host: 'beta (eu)', at: at(3) });
  });

  it('says a duration in words', () => {
    expect([850, 12_400, 185_000, 180_000, 7_440_000, 7_200_000].map(formatDuration)).toEqual([
      '850 ms',
      '12 s',
      '3 min 5 s',
      '3 min',
      '2 h 4 min',
      '2 h',
    ]);
  });
});
