import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../auth/api-keys.js';
import { type AgentRunHandler, createAgentRunHandler } from '../http/handler.js';
import { EVENT_PAGE_BYTES } from '../models/run-events.js';
import type { Store } from '../store/store.js';
import { isoTime } from '../util/clock.js';
import { testPrincipal } from './fixtures.js';

/**
 * A run's transcript through the HTTP surface (docs/run-api.md, "Run events"): the JSON pages and
 * the live Server-Sent Events stream, read from the core handler's response body. With `other`
 * (another instance over the same data, as another process would open it), the writes the stream
 * must wake for come from that instance.
 */
export interface RunEventsHttpConformanceOptions {
  /** A fresh, empty store for each test. */
  create: () => Store | Promise<Store>;
  /** Another instance over the same data; leave it out when the store cannot be shared (memory). */
  other?: (store: Store) => Store | Promise<Store>;
  destroy?: (store: Store) => void | Promise<void>;
}

const ORIGIN = 'http://agentrun.test';
const at = (ms: number) => isoTime(Date.UTC(2026, 0, 1) + ms);

interface Frame {
  id?: string;
  event?: string;
  data?: unknown;
  comment?: string;
}

/** Reads SSE frames off a response body as they come. */
function frames(res: Response) {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    /** The next frame, or undefined once the stream ended. */
    async next(): Promise<Frame | undefined> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const frame: Frame = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) frame.comment = line.slice(1).trim();
            else if (line.startsWith('id: ')) frame.id = line.slice(4);
            else if (line.startsWith('event: ')) frame.event = line.slice(7);
            else if (line.startsWith('data: ')) frame.data = JSON.parse(line.slice(6));
          }
          return frame;
        }
        const chunk = await reader.read();
        if (chunk.done) return undefined;
        buffer += decoder.decode(chunk.value, { stream: true });
      }
    },
    /** Every frame up to the end of the stream. */
    async rest(): Promise<Frame[]> {
      const out: Frame[] = [];
      for (let f = await this.next(); f; f = await this.next()) out.push(f);
      return out;
    },
    cancel: () => reader.cancel(),
  };
}

export function describeRunEventsHttpConformance(name: string, options: RunEventsHttpConformanceOptions): void {
  describe(`${name}: run events over HTTP`, () => {
    let store: Store;
    let writer: Store;
    let handler: AgentRunHandler;
    let writerHandler: AgentRunHandler;
    let key: string;
    const opened: Store[] = [];
    const errors: unknown[] = [];

    beforeEach(async () => {
      store = await options.create();
      opened.push(store);
      writer = options.other ? await options.other(store) : store;
      if (writer !== store) opened.push(writer);
      handler = createAgentRunHandler({ store, onError: (e) => errors.push(e) });
      writerHandler = writer === store ? handler : createAgentRunHandler({ store: writer, onError: (e) => errors.push(e) });
      key = await createApiKey(store.apiKeys, testPrincipal());
    });
    afterAll(async () => {
      for (const s of opened) await (options.destroy ? options.destroy(s) : s.close?.());
      expect(errors).toEqual([]);
    });

    const call = (h: AgentRunHandler, method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
      h(
        new Request(`${ORIGIN}/api/v1${path}`, {
          method,
          headers: {
            authorization: `Bearer ${key}`,
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...headers,
          },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        }),
      );
    const newRun = async () => {
      const res = await call(handler, 'POST', '/agent/run', {}, { prompt: 'transcribe me' });
      expect(res.status).toBe(200);
      return ((await res.json()) as { run_id: string }).run_id;
    };
    const output = (n: number) => ({ at: at(n), type: 'output' as const, data: { text: `line ${n}` } });

    it('pages a run’s events by id: next_cursor is the `after` of the next page', async () => {
      const runId = await newRun();
      await store.runEvents.append(runId, [output(1), output(2), output(3)]);
      const first = await call(handler, 'GET', `/agent/runs/${runId}/events?limit=2`);
      expect(first.status).toBe(200);
      expect(await first.json()).toEqual({
        events: [
          { id: 1, at: at(1), type: 'output', data: { text: 'line 1' } },
          { id: 2, at: at(2), type: 'output', data: { text: 'line 2' } },
        ],
        page_info: { has_next_page: true, next_cursor: '2' },
      });
      const second = await call(handler, 'GET', `/agent/runs/${runId}/events?limit=2&after=2`);
      expect(await second.json()).toEqual({
        events: [{ id: 3, at: at(3), type: 'output', data: { text: 'line 3' } }],
        page_info: { has_next_page: false },
      });
    });

    it('answers a bad query with 400 and a run of another team, or none, with 404', async () => {
      const runId = await newRun();
      for (const query of ['after=-1', 'after=1.5', 'after=x', 'limit=0', 'limit=1001', 'cursor=1']) {
        const res = await call(handler, 'GET', `/agent/runs/${runId}/events?${query}`);
        expect(res.status, query).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
      const stream = await call(handler, 'GET', `/agent/runs/${runId}/events`, { accept: 'text/event-stream', 'last-event-id': 'abc' });
      expect(stream.status).toBe(400);
      const otherKey = await createApiKey(store.apiKeys, testPrincipal({ uid: 'u-2', team_uid: 'team-2' }));
      const hidden = await handler(
        new Request(`${ORIGIN}/api/v1/agent/runs/${runId}/events`, { headers: { authorization: `Bearer ${otherKey}` } }),
      );
      expect(hidden.status).toBe(404);
      expect((await call(handler, 'GET', '/agent/runs/no-such-run/events', { accept: 'text/event-stream' })).status).toBe(404);
    });

    it(`cuts a page at ${EVENT_PAGE_BYTES} bytes sent (escapes counted), and the pages give every event once, in order`, async () => {
      // 100,000 characters that JSON escapes as \u0001: 600,000 bytes each on the wire, three a page.
      const runId = await newRun();
      const huge = '\u0001'.repeat(100_000);
      const big = (n: number) => ({
        at: at(n),
        type: 'followup' as const,
        data: { followup_id: `f${n}`, message: huge, creator_uid: 'u' },
      });
      await writer.runEvents.append(runId, [output(1), big(2), big(3), big(4), big(5), output(6), big(7), big(8)]);
      const seen: number[] = [];
      const sizes: number[] = [];
      let after = 0;
      for (let pages = 0; pages < 20; pages++) {
        const res = await call(handler, 'GET', `/agent/runs/${runId}/events?limit=1000&after=${after}`);
        expect(res.status).toBe(200);
        const bytes = new Uint8Array(await res.arrayBuffer());
        expect(bytes.byteLength).toBeLessThanOrEqual(EVENT_PAGE_BYTES);
        const page = JSON.parse(new TextDecoder().decode(bytes)) as {
          events: { id: number; data: { message?: string } }[];
          page_info: { has_next_page: boolean; next_cursor?: string };
        };
        for (const e of page.events) if (e.id !== 1 && e.id !== 6) expect(e.data.message).toBe(huge);
        seen.push(...page.events.map((e) => e.id));
        sizes.push(page.events.length);
        if (!page.page_info.has_next_page) break;
        expect(page.page_info.next_cursor).toBe(String(page.events.at(-1)?.id));
        after = Number(page.page_info.next_cursor);
      }
      expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(sizes).toEqual([4, 4]); // each: three huge (1.8 MB) and a small one; a fourth huge would not fit
      // The live stream gives the same events, once each, in order.
      const stream = frames(await call(handler, 'GET', `/agent/runs/${runId}/events`, { accept: 'text/event-stream' }));
      const streamed: string[] = [];
      for (let i = 0; i < 8; i++) streamed.push((await stream.next())?.id ?? 'end');
      await stream.cancel();
      expect(streamed).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
    });

    it('streams every event live as id/event/data, woken by the writer’s instance, and ends after the run is terminal', async () => {
      const runId = await newRun();
      await writer.runEvents.append(runId, [output(1)]);
      const res = await call(handler, 'GET', `/agent/runs/${runId}/events`, { accept: 'text/event-stream' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const stream = frames(res);
      expect(await stream.next()).toEqual({
        id: '1',
        event: 'output',
        data: { id: 1, at: at(1), type: 'output', data: { text: 'line 1' } },
      });
      // Written after the stream is waiting: only a notification (or the heartbeat, 15 s) wakes it.
      await writer.runEvents.append(runId, [output(2), { at: at(3), type: 'status', data: { message: 'working' } }]);
      expect(await stream.next()).toMatchObject({ id: '2', event: 'output' });
      expect(await stream.next()).toMatchObject({ id: '3', event: 'status', data: { data: { message: 'working' } } });
      const cancelled = await call(writerHandler, 'POST', `/agent/runs/${runId}/cancel`);
      expect(cancelled.status).toBe(200);
      const rest = await stream.rest();
      expect(rest).toEqual([
        {
          id: '4',
          event: 'state',
          data: {
            id: 4,
            at: expect.any(String),
            type: 'state',
            data: { from: 'QUEUED', to: 'CANCELLED', status_message: expect.any(String) },
          },
        },
      ]);
    });

    it('resumes after Last-Event-ID (over `after`), and a finished run’s stream ends once its last events are sent', async () => {
      const runId = await newRun();
      await store.runEvents.append(runId, [output(1), output(2)]);
      expect((await call(handler, 'POST', `/agent/runs/${runId}/cancel`)).status).toBe(200);
      const resumed = await call(handler, 'GET', `/agent/runs/${runId}/events?after=0`, {
        accept: 'text/event-stream',
        'last-event-id': '1',
      });
      expect((await frames(resumed).rest()).map((f) => [f.id, f.event])).toEqual([
        ['2', 'output'],
        ['3', 'state'],
      ]);
      const fromAfter = await call(handler, 'GET', `/agent/runs/${runId}/events?after=2`, { accept: 'text/event-stream' });
      expect((await frames(fromAfter).rest()).map((f) => f.id)).toEqual(['3']);
    });

    it('shows the transcript as a page, every string from the run and its events escaped', async () => {
      const res = await call(handler, 'POST', '/agent/run', {}, { prompt: '<script>alert(1)</script>' });
      const runId = ((await res.json()) as { run_id: string }).run_id;
      await store.runEvents.append(runId, [{ at: at(1), type: 'output', data: { text: `<b>&"'</b>` } }]);
      const page = await call(handler, 'GET', `/agent/runs/${runId}/transcript`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
      const html = await page.text();
      expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(html).toContain('&lt;b&gt;&amp;&quot;&#39;&lt;/b&gt;');
      expect(html).not.toContain('<script>');
      expect(html).not.toContain('<b>');
      expect((await call(handler, 'GET', '/agent/runs/no-such-run/transcript')).status).toBe(404);
    });

    it('many streams of one run share the reads: each gets every event once, in order', async () => {
      const runId = await newRun();
      await writer.runEvents.append(runId, [output(1)]);
      const streams = [];
      for (let i = 0; i < 10; i++) {
        const stream = frames(await call(handler, 'GET', `/agent/runs/${runId}/events`, { accept: 'text/event-stream' }));
        expect(await stream.next()).toMatchObject({ id: '1' });
        streams.push(stream);
      }
      let reads = 0;
      const list = store.runEvents.list.bind(store.runEvents);
      store.runEvents.list = (id, query) => {
        reads++;
        return list(id, query);
      };
      const appends = 8;
      try {
        for (let n = 2; n <= appends + 1; n++) {
          await writer.runEvents.append(runId, [output(n)]);
          for (const stream of streams) expect(await stream.next()).toMatchObject({ id: String(n), data: { data: { text: `line ${n}` } } });
        }
      } finally {
        store.runEvents.list = list;
      }
      // One read per event for all ten (each stream reading would be ten), plus at most one
      // catch-up read per stream that had not yet joined the shared read.
      expect(reads).toBeLessThanOrEqual(appends * 2 + streams.length);
      expect((await call(writerHandler, 'POST', `/agent/runs/${runId}/cancel`)).status).toBe(200);
      for (const stream of streams) expect((await stream.rest()).map((f) => f.event)).toEqual(['state']);
    });

    it('a slow stream, a late joiner and a stream that leaves each get what they should, none holding up the others', async () => {
      const runId = await newRun();
      // A queue of 512 bytes: the slow stream overflows it many times over.
      const small = createAgentRunHandler({ store, streamLimits: { queueBytes: 512 }, onError: (e) => errors.push(e) });
      const open = async (path = `/agent/runs/${runId}/events`) => frames(await call(small, 'GET', path, { accept: 'text/event-stream' }));
      const fast = await open();
      const slow = await open(); // reads nothing until the end
      const leaving = await open();
      let late: ReturnType<typeof frames> | undefined;
      const text = (n: number) => `line ${n} ${'x'.repeat(200)}`;
      const total = 30;
      for (let n = 1; n <= total; n++) {
        await writer.runEvents.append(runId, [{ at: at(n), type: 'output', data: { text: text(n) } }]);
        expect(await fast.next()).toMatchObject({ id: String(n), data: { data: { text: text(n) } } });
        if (n === 10) await leaving.cancel();
        if (n === 15) late = await open(`/agent/runs/${runId}/events?after=5`);
      }
      expect((await call(writerHandler, 'POST', `/agent/runs/${runId}/cancel`)).status).toBe(200);
      const ids = (fs: Frame[]) => fs.filter((f) => f.comment === undefined).map((f) => Number(f.id));
      const all = Array.from({ length: total + 1 }, (_, i) => i + 1);
      expect(ids(await fast.rest())).toEqual([total + 1]);
      expect(ids(await slow.rest())).toEqual(all);
      expect(ids(await (late as ReturnType<typeof frames>).rest())).toEqual(all.slice(5));
      // A stream opened after the others left still starts where it is told.
      expect(ids(await (await open(`/agent/runs/${runId}/events?after=29`)).rest())).toEqual([30, 31]);
    });

    it('a client that goes away ends the stream', async () => {
      const runId = await newRun();
      const res = await call(handler, 'GET', `/agent/runs/${runId}/events`, { accept: 'text/event-stream' });
      const stream = frames(res);
      await stream.cancel();
      // The run goes on; a new stream still works.
      await writer.runEvents.append(runId, [output(1)]);
      const again = frames(await call(handler, 'GET', `/agent/runs/${runId}/events`, { accept: 'text/event-stream' }));
      expect(await again.next()).toMatchObject({ id: '1', event: 'output' });
      await again.cancel();
    });
  });
}
