import { createMemoryStore } from '@agentrun/store-memory';
import { describe, expect, it } from 'vitest';
import type { Store } from '../src/store/store.js';
import { setup } from './helpers.js';

// The feed that the live streams of one run share (run-event-feed.ts; docs/production.md, "Event
// streams: one read per run"), where the conformance suites (run-events-http-conformance.ts) do
// not reach: a store that fails the feed's read, and a store without notifications.

const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n).toISOString();
const output = (n: number) => ({ at: at(n), type: 'output' as const, data: { text: `line ${n}` } });

/** The ids of the frames a stream sends, read one frame at a time (one frame a chunk). */
function ids(res: Response) {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  return {
    async next(): Promise<number | undefined> {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) return undefined;
        const id = /^id: (\d+)$/m.exec(decoder.decode(chunk.value))?.[1];
        if (id !== undefined) return Number(id);
      }
    },
    closed: reader.closed,
    cancel: () => reader.cancel(),
  };
}

describe('the shared feed of a run’s live streams', () => {
  it('a failed read ends every stream of the run with it; the next stream opens a fresh feed', async () => {
    const h = await setup();
    const { body } = await h.json<{ run_id: string }>('POST', '/agent/run', { body: { prompt: 'p' } });
    const open = async () => ids(await h.call('GET', `/agent/runs/${body.run_id}/events`, { headers: { accept: 'text/event-stream' } }));
    await h.store.runEvents.append(body.run_id, [output(1)]);
    const a = await open();
    const b = await open();
    expect([await a.next(), await b.next()]).toEqual([1, 1]);
    const list = h.store.runEvents.list.bind(h.store.runEvents);
    h.store.runEvents.list = async () => {
      throw new Error('the database went away');
    };
    await h.store.runEvents.append(body.run_id, [output(2)]);
    for (const stream of [a, b]) await expect(stream.closed).rejects.toThrow('the database went away');
    h.store.runEvents.list = list;
    const c = await open();
    expect([await c.next(), await c.next()]).toEqual([1, 2]);
    await c.cancel();
  });

  it('without notifications, the feed polls: streams still get every event', async () => {
    const memory = createMemoryStore();
    const store: Store = { ...memory, notifications: undefined };
    const h = await setup({ store });
    const { body } = await h.json<{ run_id: string }>('POST', '/agent/run', { body: { prompt: 'p' } });
    const open = async () => ids(await h.call('GET', `/agent/runs/${body.run_id}/events`, { headers: { accept: 'text/event-stream' } }));
    const a = await open();
    const b = await open();
    await store.runEvents.append(body.run_id, [output(1), output(2)]);
    expect([await a.next(), await a.next(), await b.next(), await b.next()]).toEqual([1, 2, 1, 2]);
    await a.cancel();
    await b.cancel();
    expect(h.errors).toEqual([]);
  });
});
