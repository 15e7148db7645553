import { afterEach, describe, expect, it, vi } from 'vitest';
import { isStalledReaderDrop, pacedBody, StalledReaderDropped } from '../src/http/paced-body.js';

// http/paced-body.ts (docs/run-api.md, "Slow readers"): the source is asked for a piece only while
// the consumer has room, and a consumer that stays full for the whole drop time is dropped.

const PIECE = 'x'.repeat(512);
const LIMITS = { queueBytes: 1024, dropStalledAfterMs: 1_000 };

/** Lets every pending promise and timer-free step run. */
const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** An endless source that counts the pieces asked of it and whether it was ended. */
function countingSource() {
  const state = { produced: 0, ended: false, signal: undefined as AbortSignal | undefined };
  const source = async function* (signal: AbortSignal) {
    state.signal = signal;
    try {
      for (;;) {
        state.produced++;
        yield PIECE;
      }
    } finally {
      state.ended = true;
    }
  };
  return { state, source };
}

describe('pacedBody', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('asks for no further piece while the queue is full, and for one more per piece read', async () => {
    const { state, source } = countingSource();
    const reader = pacedBody(source, LIMITS).getReader();
    await settle();
    // 1024 bytes of room: two 512-byte pieces, then nothing until the consumer reads.
    expect(state.produced).toBe(2);
    await settle();
    expect(state.produced).toBe(2);
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe(PIECE);
    await settle();
    expect(state.produced).toBe(3);
    await reader.cancel();
  });

  it('ends the source (its finally runs, its signal aborts) when the consumer cancels', async () => {
    const { state, source } = countingSource();
    const reader = pacedBody(source, LIMITS).getReader();
    await settle();
    await reader.cancel('gone');
    await settle();
    expect(state.ended).toBe(true);
    expect(state.signal?.aborted).toBe(true);
  });

  it('drops a consumer whose queue stays full for the drop time, not before, and ends the source', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { state, source } = countingSource();
    const stream = pacedBody(source, LIMITS);
    const reader = stream.getReader();
    const closed = reader.closed.then(
      () => 'closed',
      (error: unknown) => error,
    );
    await settle();
    vi.advanceTimersByTime(LIMITS.dropStalledAfterMs - 1);
    await settle();
    expect(state.ended).toBe(false);
    vi.advanceTimersByTime(1);
    const error = await closed;
    expect(error).toBeInstanceOf(StalledReaderDropped);
    expect(isStalledReaderDrop(error)).toBe(true);
    await settle();
    expect(state.ended).toBe(true);
    expect(state.signal?.aborted).toBe(true);
  });

  it('keeps a consumer that reads, however slowly: each read restarts the drop time', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { state, source } = countingSource();
    const reader = pacedBody(source, LIMITS).getReader();
    await settle();
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(LIMITS.dropStalledAfterMs - 1);
      expect((await reader.read()).done).toBe(false);
      await settle();
    }
    expect(state.ended).toBe(false);
    expect(state.produced).toBe(7);
    await reader.cancel();
  });

  it('closes when the source ends, and errors with the source’s error', async () => {
    const done = pacedBody(async function* () {
      yield 'a';
      yield 'b';
    }, LIMITS);
    expect(await new Response(done).text()).toBe('ab');
    const failing = pacedBody(async function* () {
      yield 'a';
      throw new Error('the store failed');
    }, LIMITS);
    await expect(new Response(failing).text()).rejects.toThrow('the store failed');
  });
});
