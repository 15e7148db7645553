import { describe, expect, it } from 'vitest';
import { isStalledReaderDrop } from '../src/http/paced-body.js';
import type { Store } from '../src/store/store.js';
import { setup } from './helpers.js';

// The live event stream under a client that does not read (docs/run-api.md, "Slow readers"): the
// store is read only as far as the client's queue has room, and a client that stays behind is
// dropped, its notification listener removed.

const EVENTS = 1_000;
const TEXT = 'y'.repeat(2_000);
const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n).toISOString();
const settle = async () => {
  for (let i = 0; i < 30; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** Counts the events the store hands out and the notification listeners still registered. */
function instrument(store: Store) {
  const counts = { eventsRead: 0, listening: 0 };
  const list = store.runEvents.list.bind(store.runEvents);
  store.runEvents.list = async (runId, query) => {
    const page = await list(runId, query);
    counts.eventsRead += page.length;
    return page;
  };
  const notifications = store.notifications;
  if (notifications) {
    const listen = notifications.listen.bind(notifications);
    notifications.listen = async (listener) => {
      const stop = await listen(listener);
      counts.listening++;
      return async () => {
        counts.listening--;
        await stop();
      };
    };
  }
  return counts;
}

async function runWithTranscript(h: Awaited<ReturnType<typeof setup>>) {
  const created = await h.json<{ run_id: string }>('POST', '/agent/run', { body: { prompt: 'a long one' } });
  const runId = created.body.run_id;
  const events = Array.from({ length: EVENTS }, (_, i) => ({ at: at(i), type: 'output' as const, data: { text: TEXT } }));
  await h.store.runEvents.append(runId, events);
  return runId;
}

describe('the event stream, paced by its client', () => {
  it('reads no further than the client’s queue allows while it does not read, and everything once it does', async () => {
    const h = await setup();
    const runId = await runWithTranscript(h);
    const counts = instrument(h.store);
    const res = await h.call('GET', `/agent/runs/${runId}/events`, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await settle();
    // 256 KiB of queue holds ~125 frames of 2 KB; a page in hand is at most ~64 more.
    const whileStalled = counts.eventsRead;
    expect(whileStalled).toBeGreaterThan(0);
    expect(whileStalled).toBeLessThan(300);
    await settle();
    expect(counts.eventsRead).toBe(whileStalled);
    // Reading it all reads the whole log, each event once (one frame a chunk).
    const decoder = new TextDecoder();
    let frames = 0;
    let last = '';
    while (frames < EVENTS) {
      const chunk = await reader.read();
      if (chunk.done) break;
      last = decoder.decode(chunk.value);
      frames++;
    }
    expect(last).toMatch(new RegExp(`^id: ${EVENTS}\nevent: output\n`));
    expect(counts.eventsRead).toBe(EVENTS);
    await reader.cancel();
    await settle();
    expect(counts.listening).toBe(0);
    expect(h.errors).toEqual([]);
  });

  it('drops a client that stays behind for `dropStalledAfterMs`, and stops listening for it', async () => {
    const h = await setup({ streamLimits: { dropStalledAfterMs: 100 } });
    const runId = await runWithTranscript(h);
    const counts = instrument(h.store);
    const res = await h.call('GET', `/agent/runs/${runId}/events`, { headers: { accept: 'text/event-stream' } });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const error = await reader.closed.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isStalledReaderDrop(error)).toBe(true);
    await settle();
    expect(counts.listening).toBe(0);
    expect(counts.eventsRead).toBeLessThan(300);
    expect(h.errors).toEqual([]);
  });

  it('refuses bad stream limits by name', async () => {
    await expect(setup({ streamLimits: { queueBytes: 0 } })).rejects.toThrow(/streamLimits/);
    await expect(setup({ streamLimits: { dropStalledAfterMs: '60s' as unknown as number } })).rejects.toThrow(/streamLimits/);
  });
});
