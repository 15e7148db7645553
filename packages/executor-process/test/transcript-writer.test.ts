import type { ExecutionContext, ProgressUpdate, RecordOptions, TranscriptEntry } from '@agentrun/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type AgentLine, transcriptWriter } from '../src/transcript-writer.js';

/**
 * A context whose writes are kept with the time each started, each held until `release` lets it
 * finish, or taking `takesMs` on the (fake) clock, else finishing at once.
 */
function fakeContext({ held = false, takesMs = 0 } = {}) {
  const writes: { entries: TranscriptEntry[]; status?: ProgressUpdate; at: number }[] = [];
  const pending: (() => void)[] = [];
  let underWay = 0;
  let mostAtOnce = 0;
  const context: ExecutionContext = {
    signal: new AbortController().signal,
    report: async () => {},
    block: async () => {},
    resume: async () => {},
    onFollowup: () => () => {},
    async record(entries: readonly TranscriptEntry[], options?: RecordOptions) {
      writes.push({ entries: [...entries], ...(options?.status ? { status: options.status } : {}), at: performance.now() });
      mostAtOnce = Math.max(mostAtOnce, ++underWay);
      if (held) await new Promise<void>((resolve) => pending.push(resolve));
      if (takesMs > 0) await new Promise((resolve) => setTimeout(resolve, takesMs));
      underWay--;
    },
  };
  return {
    context,
    writes,
    mostAtOnce: () => mostAtOnce,
    /** Finish the oldest write held, once there is one (a test that waits longer fails). */
    async release() {
      for (let turns = 0; pending.length === 0; turns++) {
        if (turns > 1000) throw new Error('no write came');
        await new Promise(setImmediate);
      }
      pending.shift()?.();
    },
  };
}

const plain = (text: string): AgentLine => ({
  entry: { type: 'output', data: { text } },
  status: { update: { message: text }, throttled: true },
});
const status = (message: string, session?: { session_id?: string; session_link?: string }): AgentLine => {
  const update = { message, ...session };
  return { entry: { type: 'status', data: update }, status: { update, throttled: false } };
};
const texts = (entries: TranscriptEntry[]) =>
  entries.map((e) => (e.type === 'output' ? e.data.text : e.type === 'status' ? `status: ${e.data.message}` : 'artifact'));
/** Lets the writer's microtasks and a write that finishes at once run, without moving the (fake) clock. */
const settle = () => new Promise(setImmediate);
/** The time between the starts of each write and the one before it. */
const gaps = (writes: { at: number }[]) => writes.slice(1).map((w, i) => w.at - (writes[i]?.at ?? 0));
/** The clock the writer reads, and its timers, fake; setImmediate stays real for `settle`. */
const fakeClock = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });

describe('transcriptWriter', () => {
  afterEach(() => vi.useRealTimers());

  it('writes every line once, in order, at most a batch a write and one write at a time; a full batch waiting pauses stdout until it can go', async () => {
    const fake = fakeContext({ held: true });
    const flow: string[] = [];
    // Gathering so long that only full batches and protocol messages are written before close.
    const writer = transcriptWriter(fake.context, (e) => flow.push(`error ${e}`), {
      intervalMs: 60_000,
      maxBatch: 100,
      backpressure: { pause: () => flow.push('pause'), resume: () => flow.push('resume') },
    });
    const lines = [status('first')];
    for (let i = 0; i < 250; i++) lines.push(i % 9 === 4 ? status(`step ${i}`) : plain(`line ${i}`));
    // The first (a protocol message) is written at once and held; the 250 after it wait for it.
    for (const line of lines) writer.add(line);
    expect(flow).toEqual(['pause']);
    // Each full batch follows the write before it at once; so does the rest, which holds protocol messages.
    for (let i = 0; i < 4; i++) await fake.release();
    expect(flow).toEqual(['pause', 'resume']);
    expect(fake.writes.map((w) => w.entries.length)).toEqual([1, 100, 100, 50]);
    await writer.close();
    expect(fake.writes).toHaveLength(4);
    expect(fake.mostAtOnce()).toBe(1);
    expect(fake.writes.flatMap((w) => texts(w.entries))).toEqual(lines.flatMap((l) => texts([l.entry])));
  });

  it('a protocol message goes at once with the lines before it, its status the batch’s (session fields kept); a plain line’s status is no event of its own', async () => {
    const fake = fakeContext({ held: true });
    const writer = transcriptWriter(fake.context, () => {}, { intervalMs: 60_000, statusIntervalMs: 60_000 });
    writer.add(status('Starting'));
    // While that write is under way:
    writer.add(plain('reading'));
    writer.add(status('Session started', { session_id: 's-1', session_link: 'https://agents.example/s/1' }));
    writer.add(status('Read the prompt'));
    writer.add(plain('thinking'));
    const closed = writer.close();
    await fake.release();
    await fake.release();
    await closed;
    expect(fake.writes.map(({ at, ...write }) => write)).toEqual([
      { entries: [{ type: 'status', data: { message: 'Starting' } }], status: { message: 'Starting' } },
      {
        entries: [
          { type: 'output', data: { text: 'reading' } },
          { type: 'status', data: { message: 'Session started', session_id: 's-1', session_link: 'https://agents.example/s/1' } },
          { type: 'status', data: { message: 'Read the prompt' } },
          { type: 'output', data: { text: 'thinking' } },
        ],
        // "thinking" came within the status interval, and the writer closed: its status is dropped.
        status: { message: 'Read the prompt', session_id: 's-1', session_link: 'https://agents.example/s/1' },
      },
    ]);
  });

  it('a plain line after a quiet window is written at once, with the other lines of its read; one soon after a write waits for the window', async () => {
    fakeClock();
    const fake = fakeContext();
    const writer = transcriptWriter(fake.context, () => {}, { intervalMs: 50 });
    writer.add(plain('one'));
    await settle();
    expect(fake.writes.map((w) => texts(w.entries))).toEqual([['one']]);
    await vi.advanceTimersByTimeAsync(60);
    // Lines of one read come in one turn: they share the write.
    writer.add(plain('two'));
    writer.add(plain('three'));
    await settle();
    expect(fake.writes.map((w) => texts(w.entries))).toEqual([['one'], ['two', 'three']]);
    await vi.advanceTimersByTimeAsync(10);
    writer.add(plain('four'));
    await settle();
    expect(fake.writes).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(39);
    expect(fake.writes).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(fake.writes.map((w) => texts(w.entries))).toEqual([['one'], ['two', 'three'], ['four']]);
    expect(gaps(fake.writes)).toEqual([60, 50]);
    await writer.close();
  });

  it('lines that come faster than the window are gathered: a write per window at most, in order', async () => {
    fakeClock();
    const fake = fakeContext();
    const writer = transcriptWriter(fake.context, () => {}, { intervalMs: 50 });
    const printed: string[] = [];
    for (let i = 0; i < 100; i++) {
      printed.push(`line ${i}`);
      writer.add(plain(`line ${i}`));
      await vi.advanceTimersByTimeAsync(5);
    }
    await writer.close();
    // 100 lines over half a second: the first at once, then one write per 50 ms.
    expect(fake.writes.length).toBeLessThanOrEqual(1 + 500 / 50);
    expect(gaps(fake.writes).every((gap) => gap >= 50)).toBe(true);
    expect(fake.writes.flatMap((w) => texts(w.entries))).toEqual(printed);
  });

  it('when the store is slower than the window, the lines gathered during a write follow it at once, one write at a time', async () => {
    fakeClock();
    const fake = fakeContext({ takesMs: 80 });
    const writer = transcriptWriter(fake.context, () => {}, { intervalMs: 50 });
    const printed: string[] = [];
    // A line every 10 ms, each write taking 80 ms: the next starts as the one before ends.
    for (let i = 0; i < 100; i++) {
      printed.push(`line ${i}`);
      writer.add(plain(`line ${i}`));
      await vi.advanceTimersByTimeAsync(10);
    }
    const closed = writer.close();
    await vi.advanceTimersByTimeAsync(1000);
    await closed;
    expect(fake.writes.length).toBeGreaterThan(10);
    expect(gaps(fake.writes).every((gap) => gap === 80)).toBe(true);
    expect(fake.mostAtOnce()).toBe(1);
    expect(fake.writes.flatMap((w) => texts(w.entries))).toEqual(printed);
  });

  it('a burst in one read is written in full batches at once, stdout paused while one waits; the rest follows the window', async () => {
    fakeClock();
    const fake = fakeContext();
    const flow: string[] = [];
    const writer = transcriptWriter(fake.context, () => {}, {
      intervalMs: 50,
      maxBatch: 100,
      backpressure: { pause: () => flow.push('pause'), resume: () => flow.push('resume') },
    });
    const printed = Array.from({ length: 250 }, (_, i) => `line ${i}`);
    for (const text of printed) writer.add(plain(text));
    await settle();
    expect(flow).toEqual(['pause', 'resume']);
    expect(fake.writes.map((w) => w.entries.length)).toEqual([100, 100]);
    await vi.advanceTimersByTimeAsync(50);
    expect(fake.writes.map((w) => [w.entries.length, w.at])).toEqual([
      [100, 0],
      [100, 0],
      [50, 50],
    ]);
    expect(fake.writes.flatMap((w) => texts(w.entries))).toEqual(printed);
    await writer.close();
  });

  it('a plain line becomes the status at most once per interval, the latest winning, by itself once due', async () => {
    fakeClock();
    const fake = fakeContext();
    const writer = transcriptWriter(fake.context, () => {}, { intervalMs: 50, statusIntervalMs: 1000 });
    for (const text of ['one', 'two', 'three']) {
      writer.add(plain(text));
      await vi.advanceTimersByTimeAsync(50);
    }
    await vi.advanceTimersByTimeAsync(1000);
    await writer.close();
    expect(fake.writes.map((w) => [texts(w.entries), w.status?.message])).toEqual([
      [['one'], 'one'],
      [['two'], undefined],
      [['three'], undefined],
      [[], 'three'],
    ]);
  });

  it('a write of the held status alone does not make the next line wait for the window', async () => {
    fakeClock();
    const fake = fakeContext();
    const writer = transcriptWriter(fake.context, () => {}, { intervalMs: 50, statusIntervalMs: 1000 });
    writer.add(plain('one'));
    await vi.advanceTimersByTimeAsync(60);
    writer.add(plain('two'));
    // "two" is the status a second after "one" became it, by a write of its own.
    await vi.advanceTimersByTimeAsync(940);
    expect(fake.writes.at(-1)).toMatchObject({ entries: [], status: { message: 'two' } });
    await vi.advanceTimersByTimeAsync(10);
    writer.add(plain('three'));
    await settle();
    expect(fake.writes.map((w) => [texts(w.entries), w.status?.message])).toEqual([
      [['one'], 'one'],
      [['two'], undefined],
      [[], 'two'],
      [['three'], undefined],
    ]);
    await writer.close();
  });

  it('ordered work (an artifact) goes after the lines before it and before those after; a full batch waiting behind it pauses stdout; a stop drops lines, never the work', async () => {
    const fake = fakeContext();
    const flow: string[] = [];
    const writer = transcriptWriter(fake.context, (e) => flow.push(`error ${e}`), {
      intervalMs: 0,
      maxBatch: 3,
      backpressure: { pause: () => flow.push('pause'), resume: () => flow.push('resume') },
    });
    let finish: () => void = () => {};
    const done: string[] = [];
    writer.add(plain('before'));
    writer.inOrder(async () => {
      flow.push(`work after ${fake.writes.length} writes`);
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      done.push('artifact');
    });
    writer.inOrder(async () => {
      done.push(`second artifact after ${fake.writes.length} writes`);
    });
    for (let i = 0; i < 5; i++) writer.add(plain(`after ${i}`));
    await settle();
    // The line before went first; the work is under way, the lines after wait for both artifacts.
    expect(fake.writes.map((w) => texts(w.entries))).toEqual([['before']]);
    expect(flow).toEqual(['pause', 'work after 1 writes']);
    expect(writer.stop().map((l) => texts([l.entry])[0])).toEqual(['after 2', 'after 3', 'after 4']);
    expect(flow).toEqual(['pause', 'work after 1 writes', 'resume']);
    finish();
    await writer.close();
    expect(done).toEqual(['artifact', 'second artifact after 1 writes']);
    expect(fake.writes.map((w) => texts(w.entries))).toEqual([['before'], ['after 0', 'after 1']]);
  });
});
