import type { ExecutionContext, ProgressUpdate, RecordOptions, TranscriptEntry } from '@agentrun/core';
import { RUN_EVENTS_PER_RUN } from '@agentrun/core/store';
import { describe, expect, it } from 'vitest';
import { type AgentOutput, agentOutput } from '../src/agent-output.js';
import { outputBudget } from '../src/output-budget.js';

/** A context whose writes are kept; with `held`, each waits until `release` (a store that fell behind). */
function fakeStore({ held = false } = {}) {
  const writes: { entries: TranscriptEntry[]; status?: ProgressUpdate }[] = [];
  const pending: (() => void)[] = [];
  const context: ExecutionContext = {
    signal: new AbortController().signal,
    report: async () => {},
    block: async () => {},
    resume: async () => {},
    onFollowup: () => () => {},
    async record(entries: readonly TranscriptEntry[], options?: RecordOptions) {
      writes.push({ entries: [...entries], ...(options?.status ? { status: options.status } : {}) });
      if (held) await new Promise<void>((resolve) => pending.push(resolve));
    },
  };
  const flow: string[] = [];
  return {
    context,
    writes,
    flow,
    backpressure: { pause: () => flow.push('pause'), resume: () => flow.push('resume') },
    entries: () => writes.flatMap((w) => w.entries),
    /** Let every write held so far, and those they lead to, finish. */
    releaseAll: async () => {
      for (let turns = 0; turns < 100; turns++) {
        pending.splice(0).forEach((finish) => {
          finish();
        });
        await new Promise(setImmediate);
      }
    },
    async releaseOne() {
      for (let turns = 0; pending.length === 0; turns++) {
        if (turns > 1000) throw new Error('no write came');
        await new Promise(setImmediate);
      }
      pending.shift()?.();
      await new Promise(setImmediate);
    },
  };
}

/** One line of the agent's stdout, in a read of its own. */
const say = (output: AgentOutput, line: string) => output.write(`${line}\n`);
const texts = (entries: TranscriptEntry[]) =>
  entries.map((e) =>
    e.type === 'output'
      ? e.data.text
      : e.type === 'status'
        ? `status: ${e.data.message}`
        : e.type === 'artifact'
          ? `artifact: ${e.data.path}`
          : e.type,
  );
const markers = (entries: TranscriptEntry[]) => texts(entries).filter((t) => t.startsWith('status: Output truncated'));

describe('agentOutput: the output budget (docs/executors.md, "Output budget")', () => {
  it('keeps lines until their bytes would pass maxOutputBytes, then one marker that is also the status, and no event after; the result still counts', async () => {
    const store = fakeStore();
    const output = agentOutput(store.context, {
      maxOutputBytes: 40,
      onError: (e) => store.flow.push(`error ${e}`),
      backpressure: store.backpressure,
    });
    // 10 bytes each with the newline ("é" is two): four fill the budget; blank lines cost nothing.
    for (const line of ['line é 1', '', 'line é 2', '   ', 'line é 3', 'line é 4']) say(output, line);
    say(output, 'line é 5'); // 50 bytes: past the budget
    say(output, '{"agentrun":"status","message":"later"}');
    say(output, '{"agentrun":"artifact","path":"late.md"}');
    say(output, 'more');
    say(output, '{"agentrun":"result","status":"succeeded","message":"done anyway"}');
    await output.close();
    expect(texts(store.entries())).toEqual([
      'line é 1',
      'line é 2',
      'line é 3',
      'line é 4',
      "status: Output truncated after 40 bytes: the agent's output beyond maxOutputBytes (40) is read and not kept",
    ]);
    expect(store.writes.at(-1)?.status?.message).toMatch(/^Output truncated after 40 bytes/);
    expect(output.result).toEqual({ status: 'succeeded', message: 'done anyway' });
    expect(store.flow).toEqual([]);
  });

  it('past the budget, the result message is still found among the lines skipped, split across reads', async () => {
    const store = fakeStore();
    const output = agentOutput(store.context, { maxOutputBytes: 100, onError: () => {}, backpressure: store.backpressure });
    const result = '{"agentrun":"result","status":"failed","message":"found","error_code":"deep"}';
    const text = `${'y\n'.repeat(30_000)}${result}\n${'y\n'.repeat(30_000)}`;
    // Reads of 4,096 characters, but one ends inside the result's prefix (at 60,000 + 5).
    for (const [from, to] of [
      [0, 60_005],
      [60_005, text.length],
    ] as const)
      for (let at = from; at < to; at += 4096) output.write(text.slice(at, Math.min(at + 4096, to)));
    output.end();
    await output.close();
    expect(output.result).toEqual({ status: 'failed', message: 'found', error_code: 'deep' });
    expect(store.entries()).toHaveLength(50 + 1);
  });

  it('keeps no more lines than a store keeps events of a run (less room for the marker and the run’s own events)', async () => {
    const store = fakeStore();
    const output = agentOutput(store.context, { maxOutputBytes: 2 ** 30, onError: () => {}, backpressure: store.backpressure });
    for (let i = 0; i < RUN_EVENTS_PER_RUN + 500; i++) say(output, 'y');
    await output.close();
    const entries = store.entries();
    expect(entries).toHaveLength(RUN_EVENTS_PER_RUN - 100 + 1);
    expect(markers(entries)).toEqual([
      `status: Output truncated after ${2 * (RUN_EVENTS_PER_RUN - 100)} bytes: the agent's lines beyond ${RUN_EVENTS_PER_RUN - 100} (a store keeps ${RUN_EVENTS_PER_RUN} events of a run) are read and not kept`,
    ]);
  });

  it('stopped with a backlog the store is slow to take: less than a batch is kept, the rest dropped with one marker, stdout resumed, and close waits for two writes at most', async () => {
    const store = fakeStore({ held: true });
    const output = agentOutput(store.context, { maxOutputBytes: 2 ** 30, onError: () => {}, backpressure: store.backpressure });
    // One read of 1,001 lines: a full batch's write is held (the store is behind), the rest wait, stdout paused.
    say(output, 'first');
    for (let i = 0; i < 1000; i++) say(output, `line ${i}`);
    expect(store.flow).toEqual(['pause']);
    output.stop('timeout');
    expect(store.flow).toEqual(['pause', 'resume']);
    // What the agent prints after the stop is read and dropped; stdout is not paused again.
    for (let i = 0; i < 1000; i++) say(output, `after ${i}`);
    expect(store.flow).toEqual(['pause', 'resume']);
    let closed = false;
    const closing = output.close().then(() => {
      closed = true;
    });
    await store.releaseOne(); // the write that was under way
    await store.releaseOne(); // and the one left
    await closing;
    expect(closed).toBe(true);
    expect(store.writes).toHaveLength(2);
    // The write under way took a full batch (the first line and 99 of the read); 99 more were kept.
    const lines = ['first', ...Array.from({ length: 99 + 99 }, (_, i) => `line ${i}`)];
    const bytes = lines.reduce((sum, line) => sum + line.length + 1, 0);
    expect(texts(store.entries())).toEqual([
      ...lines,
      `status: Output truncated after ${bytes} bytes: the run was stopped (timeout) with output still waiting for the store, which is not kept`,
    ]);
  });

  it('stopped with nothing waiting: what the agent prints during the kill grace is still kept, and no marker', async () => {
    const store = fakeStore();
    const output = agentOutput(store.context, { maxOutputBytes: 2 ** 30, onError: () => {}, backpressure: store.backpressure });
    say(output, 'working');
    output.stop('cancel');
    say(output, 'caught SIGTERM, cleaning up');
    await output.close();
    expect(texts(store.entries())).toEqual(['working', 'caught SIGTERM, cleaning up']);
  });

  it('a budget marker dropped by a stop is replaced by the stop’s', async () => {
    const store = fakeStore({ held: true });
    const output = agentOutput(store.context, { maxOutputBytes: 10_000, onError: () => {}, backpressure: store.backpressure });
    say(output, 'first');
    for (let i = 0; i < 2000; i++) say(output, `line ${i}`); // past the budget: the marker is queued last
    output.stop('cancel');
    const closing = output.close();
    await store.releaseAll();
    await closing;
    expect(markers(store.entries())).toEqual([expect.stringMatching(/the run was stopped \(cancel\)/)]);
  });
});

describe('outputBudget', () => {
  it('keeps up to the bytes, then says which limit it met once, then drops', () => {
    const budget = outputBudget(10, 3);
    expect([budget.take(4), budget.take(6), budget.take(1), budget.take(1)]).toEqual([
      'keep',
      'keep',
      { by: 'bytes', maxBytes: 10 },
      'drop',
    ]);
    expect(budget.bytes).toBe(10);
    const lines = outputBudget(100, 2);
    expect([lines.take(1), lines.take(1), lines.take(1)]).toEqual(['keep', 'keep', { by: 'lines', maxLines: 2 }]);
  });
});
