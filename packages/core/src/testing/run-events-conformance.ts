import { describe, expect, it } from 'vitest';
import type { NewRunEvent } from '../store/run-events.js';
import { RUN_EVENTS_PER_RUN } from '../store/run-events.js';
import type { Store } from '../store/store.js';
import { isoTime } from '../util/clock.js';
import { makeRun } from './fixtures.js';

const T0 = Date.UTC(2026, 0, 1);
const at = (ms: number) => isoTime(T0 + ms);
const output = (n: number): NewRunEvent => ({ at: at(n), type: 'output', data: { text: `line ${n}` } });

/** The run-events part of the store conformance suite (see `describeStoreConformance`, docs/stores.md "Run events"). */
export function describeRunEventsConformance(current: () => Store): void {
  describe('run events', () => {
    const created = async () => {
      const run = makeRun();
      await current().runs.create({ run, attachments: [] });
      return run.id;
    };

    it('numbers a run’s events 1, 2, 3… in append order, per run, and pages them by id', async () => {
      const store = current();
      const a = await created();
      const b = await created();
      await store.runEvents.append(a, [
        { at: at(1), type: 'state', data: { state: 'QUEUED' } },
        { at: at(2), type: 'output', data: { text: 'hello', nested: [1, { x: null }] } },
      ]);
      await store.runEvents.append(b, [{ at: at(3), type: 'status', data: { message: 'b' } }]);
      await store.runEvents.append(a, [{ at: at(4), type: 'artifact', data: { url: 'https://example.com/pr/1' } }]);
      await store.runEvents.append(a, []);
      expect(await store.runEvents.list(a, { limit: 10 })).toEqual([
        { id: 1, runId: a, at: at(1), type: 'state', data: { state: 'QUEUED' } },
        { id: 2, runId: a, at: at(2), type: 'output', data: { text: 'hello', nested: [1, { x: null }] } },
        { id: 3, runId: a, at: at(4), type: 'artifact', data: { url: 'https://example.com/pr/1' } },
      ]);
      expect(await store.runEvents.list(b, { limit: 10 })).toEqual([
        { id: 1, runId: b, at: at(3), type: 'status', data: { message: 'b' } },
      ]);
      expect((await store.runEvents.list(a, { after: 1, limit: 1 })).map((e) => e.id)).toEqual([2]);
      expect((await store.runEvents.list(a, { after: 2, limit: 5 })).map((e) => e.id)).toEqual([3]);
      expect(await store.runEvents.list(a, { after: 3, limit: 5 })).toEqual([]);
    });

    it('keeps the order of a batch across types, however large, and each later batch after it, whatever their times', async () => {
      // The process executor writes an agent's lines in batches of mixed types (docs/executors.md):
      // ids follow the order given, never the time or the type. All share one time here.
      const store = current();
      const id = await created();
      const types = ['output', 'status', 'artifact', 'tool_call', 'tool_result', 'output', 'state'] as const;
      const event = (n: number): NewRunEvent => ({ at: at(0), type: types[n % types.length] as NewRunEvent['type'], data: { n } });
      const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => event(from + i));
      await store.runEvents.append(id, range(0, 250));
      for (let n = 250; n < 260; n++) await store.runEvents.append(id, [event(n)]);
      await store.runEvents.append(id, range(260, 40));
      const events = await store.runEvents.list(id, { limit: 1000 });
      expect(events.map((e) => [e.id, e.type, e.data])).toEqual(
        Array.from({ length: 300 }, (_, n) => [n + 1, types[n % types.length], { n }]),
      );
    });

    it('keeps nothing for a run that does not exist, and lists none', async () => {
      const store = current();
      await store.runEvents.append('no-such-run', [output(1)]);
      expect(await store.runEvents.list('no-such-run', { limit: 10 })).toEqual([]);
    });

    it('returns copies: changing appended or returned data does not change the log', async () => {
      const store = current();
      const id = await created();
      const data = { text: 'kept' };
      await store.runEvents.append(id, [{ at: at(1), type: 'output', data }]);
      data.text = 'changed';
      const [first] = await store.runEvents.list(id, { limit: 1 });
      (first?.data as { text: string }).text = 'changed too';
      expect((await store.runEvents.list(id, { limit: 1 }))[0]?.data).toEqual({ text: 'kept' });
    });

    it('appends concurrently without losing or repeating an id', async () => {
      const store = current();
      const id = await created();
      await Promise.all(Array.from({ length: 8 }, (_, i) => store.runEvents.append(id, [output(2 * i), output(2 * i + 1)])));
      const events = await store.runEvents.list(id, { limit: 100 });
      expect(events.map((e) => e.id)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
      // A batch stays together: its two events (line 2k, line 2k+1) take consecutive ids.
      const lines = events.map((e) => Number(String((e.data as { text?: unknown }).text).slice(5)));
      for (let i = 0; i < lines.length; i += 2) expect([lines[i], lines[i + 1]]).toEqual([lines[i], (lines[i] ?? 0) + 1]);
    });

    it('bounds a read by maxBytes: a prefix of the events, up to the one whose size reaches it, each with its size', async () => {
      // Core reads pages this way (run/event-page.ts): the store returns what fits, Node never the rest.
      const store = current();
      const id = await created();
      const big = (n: number): NewRunEvent => ({ at: at(n), type: 'output', data: { text: 'x'.repeat(10_000) } });
      await store.runEvents.append(
        id,
        Array.from({ length: 6 }, (_, n) => big(n)),
      );
      const ids = async (query: { after?: number; limit: number; maxBytes?: number }) =>
        (await store.runEvents.list(id, query)).map((e) => e.id);
      // Each event is about 10,010 bytes: two are below 25,000, the third reaches it and is the last.
      const bounded = await store.runEvents.list(id, { limit: 10, maxBytes: 25_000 });
      expect(bounded.map((e) => e.id)).toEqual([1, 2, 3]);
      for (const e of bounded) {
        expect(e.size).toBeGreaterThanOrEqual(10_010);
        expect(e.size).toBeLessThanOrEqual(10_020);
      }
      expect(bounded.map(({ size: _, ...e }) => e)).toEqual(await store.runEvents.list(id, { limit: 3 }));
      expect(await ids({ after: 2, limit: 10, maxBytes: 25_000 })).toEqual([3, 4, 5]);
      // Always one event, however small the bound; never past `limit`, however large; none past the end.
      expect(await ids({ after: 4, limit: 10, maxBytes: 1 })).toEqual([5]);
      expect(await ids({ limit: 2, maxBytes: 1_000_000 })).toEqual([1, 2]);
      expect(await ids({ after: 3, limit: 10, maxBytes: 1_000_000 })).toEqual([4, 5, 6]);
      expect(await ids({ after: 6, limit: 10, maxBytes: 1_000_000 })).toEqual([]);
      expect(await store.runEvents.list('no-such-run', { limit: 10, maxBytes: 1 })).toEqual([]);
    });

    it('measures an event in the bytes of its JSON text: escapes and multi-byte characters count as sent', async () => {
      const store = current();
      const id = await created();
      const texts = ['\u0001'.repeat(1_000), 'é'.repeat(1_000), '€'.repeat(1_000), '😀'.repeat(1_000), '"'.repeat(1_000)];
      await store.runEvents.append(
        id,
        texts.map((text, n) => ({ at: at(n), type: 'output', data: { text } })),
      );
      const sizes = (await store.runEvents.list(id, { limit: 10, maxBytes: 1_000_000 })).map((e) => e.size ?? 0);
      // 6 bytes for `\u0001`, 2 for é, 3 for €, 4 for 😀, 2 for `\"`; the rest is `{"text": ""}` (with or without spaces).
      const expected = [6_000, 2_000, 3_000, 4_000, 2_000];
      for (const [i, size] of sizes.entries()) {
        expect(size, texts[i]?.slice(0, 1)).toBeGreaterThanOrEqual((expected[i] ?? 0) + 10);
        expect(size, texts[i]?.slice(0, 1)).toBeLessThanOrEqual((expected[i] ?? 0) + 12);
      }
    });

    it(`keeps ${RUN_EVENTS_PER_RUN} events at most, the last one a single truncated marker; later appends add nothing`, async () => {
      const store = current();
      const id = await created();
      const cap = RUN_EVENTS_PER_RUN;
      await store.runEvents.append(
        id,
        Array.from({ length: cap - 2 }, (_, i) => output(i)),
      );
      // One fits; the second is the first dropped: the marker takes its time and the last place.
      await store.runEvents.append(id, [output(cap), output(cap + 1), output(cap + 2)]);
      await store.runEvents.append(id, [output(cap + 3)]);
      const tail = await store.runEvents.list(id, { after: cap - 3, limit: 10 });
      expect(tail).toEqual([
        { id: cap - 2, runId: id, at: at(cap - 3), type: 'output', data: { text: `line ${cap - 3}` } },
        { id: cap - 1, runId: id, at: at(cap), type: 'output', data: { text: `line ${cap}` } },
        { id: cap, runId: id, at: at(cap + 1), type: 'truncated', data: { limit: cap } },
      ]);
    });
  });
}
