import { createAgentRunHandler, createApiKey, type Store } from '@agentrun/core';
import { EVENT_PAGE_BYTES } from '@agentrun/core/api';
import { testPrincipal } from '@agentrun/core/testing';
import { describe, expect, it } from 'vitest';
import { HOSTILE_STORES, storeFor } from './support/stores.js';

/**
 * A client making event pages as large as it can: 50 follow-ups of 100,000 characters that JSON
 * escapes to six bytes each (`\u0001`), 30 MB of events, then the largest page there is,
 * `limit=1000`. Every page it gets is at most `EVENT_PAGE_BYTES` as sent, and walking
 * `next_cursor` gives every event of the run once, in order (docs/run-api.md, "A page"); the live
 * stream gives the same events. Fifty fill 17 pages, each cut by its bytes, not by its `limit`.
 */

const FOLLOWUPS = 50;
const HUGE = '\u0001'.repeat(100_000);

interface Page {
  events: { id: number; type: string; data: { message?: string } }[];
  page_info: { has_next_page: boolean; next_cursor?: string };
}

describe.each(HOSTILE_STORES)('a client asking for pages of huge follow-ups, on %s', (kind) => {
  const stores = storeFor(kind, 'event_pages');

  async function client(store: Store) {
    const errors: unknown[] = [];
    const handler = createAgentRunHandler({ store, onError: (e) => errors.push(e) });
    const key = await createApiKey(store.apiKeys, testPrincipal());
    const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      handler(
        new Request(`http://agentrun.test/api/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      );
    return { call, errors };
  }

  it(`never sends a page over ${EVENT_PAGE_BYTES} bytes, and the pages give every event once, in order`, async () => {
    const store = await stores.fresh();
    try {
      const { call, errors } = await client(store);
      const created = await call('POST', '/agent/run', { prompt: 'follow me up' });
      expect(created.status).toBe(200);
      const { run_id } = (await created.json()) as { run_id: string };
      for (let i = 0; i < FOLLOWUPS; i++) {
        const res = await call('POST', `/agent/runs/${run_id}/followups`, { message: HUGE });
        expect(res.status, await res.clone().text()).toBe(200);
      }
      const logged = (await store.runEvents.list(run_id, { limit: 1000 })).map((e) => e.id);
      expect(logged.length).toBeGreaterThanOrEqual(FOLLOWUPS);

      const seen: number[] = [];
      let followups = 0;
      let after = 0;
      let pages = 0;
      for (;;) {
        const res = await call('GET', `/agent/runs/${run_id}/events?limit=1000&after=${after}`);
        expect(res.status).toBe(200);
        const bytes = new Uint8Array(await res.arrayBuffer());
        expect(bytes.byteLength).toBeLessThanOrEqual(EVENT_PAGE_BYTES);
        const page = JSON.parse(new TextDecoder().decode(bytes)) as Page;
        expect(page.events.length).toBeGreaterThan(0);
        for (const e of page.events) {
          if (e.type !== 'followup') continue;
          expect(e.data.message).toBe(HUGE);
          followups++;
        }
        seen.push(...page.events.map((e) => e.id));
        pages++;
        if (!page.page_info.has_next_page) break;
        expect(page.page_info.next_cursor).toBe(String(page.events.at(-1)?.id));
        after = Number(page.page_info.next_cursor);
      }
      expect(seen).toEqual(logged);
      expect(followups).toBe(FOLLOWUPS);
      // 600 KB a follow-up: three fit a page, so the walk takes about 50 / 3 pages, not one.
      expect(pages).toBeGreaterThanOrEqual(Math.ceil(FOLLOWUPS / 3));

      // The live stream reads in bounded pieces too, and gives the same events once each.
      const stream = await call('GET', `/agent/runs/${run_id}/events`, undefined, { accept: 'text/event-stream' });
      const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      const ids: number[] = [];
      let buffer = '';
      while (ids.length < logged.length) {
        const chunk = await reader.read();
        if (chunk.done) break;
        buffer += decoder.decode(chunk.value, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const id = /^id: (\d+)$/m.exec(buffer.slice(0, end))?.[1];
          if (id !== undefined) ids.push(Number(id));
          buffer = buffer.slice(end + 2);
        }
      }
      await reader.cancel();
      expect(ids).toEqual(logged);
      expect(errors).toEqual([]);
    } finally {
      await store.close?.();
    }
  }, 60_000);
});
