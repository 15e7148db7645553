import { describe, expect, it } from 'vitest';
import { TRANSCRIPT_PAGE_EVENTS } from '../src/run/transcript-html.js';
import { BASE, expectProblem, setup } from './helpers.js';

// `GET /agent/runs/{runId}/transcript` (docs/run-api.md, "The transcript page"): at most
// TRANSCRIPT_PAGE_EVENTS events a page, linked to the pages around it by `?after=`, produced as
// the client reads it.

const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n).toISOString();
const settle = async () => {
  for (let i = 0; i < 30; i++) await new Promise((resolve) => setImmediate(resolve));
};

async function runWith(h: Awaited<ReturnType<typeof setup>>, count: number, text: (n: number) => string) {
  const created = await h.json<{ run_id: string }>('POST', '/agent/run', { body: { prompt: 'page me' } });
  const runId = created.body.run_id;
  const events = Array.from({ length: count }, (_, i) => ({ at: at(i), type: 'output' as const, data: { text: text(i + 1) } }));
  await h.store.runEvents.append(runId, events);
  return runId;
}

const rowIds = (html: string) => [...html.matchAll(/<tr class="output"><td>(\d+)<\/td>/g)].map((m) => Number(m[1]));
const links = (html: string) => Object.fromEntries([...html.matchAll(/<a rel="(\w+)" href="([^"]+)">/g)].map((m) => [m[1], m[2]]));

describe('the transcript page', () => {
  it('shows at most a page of events, with links to the pages before and after that lead through the whole run', async () => {
    expect(TRANSCRIPT_PAGE_EVENTS).toBe(200);
    const h = await setup();
    const runId = await runWith(h, 450, (n) => `line <${n}>`);
    const path = `${BASE}/agent/runs/${runId}/transcript`;

    const first = await h.call('GET', path);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const one = await first.text();
    expect(rowIds(one)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(one).toContain('line &lt;200&gt;');
    expect(links(one)).toEqual({ next: '?after=200' });

    // The links are relative to the page, as a browser resolves them.
    const two = await (await h.call('GET', new URL(links(one).next as string, path).href)).text();
    expect(rowIds(two)).toEqual(Array.from({ length: 200 }, (_, i) => i + 201));
    expect(links(two)).toEqual({ first: '?after=0', prev: '?after=0', next: '?after=400' });
    expect(two).toContain('Events 201–400.');

    const three = await (await h.call('GET', new URL(links(two).next as string, path).href)).text();
    expect(rowIds(three)).toEqual(Array.from({ length: 50 }, (_, i) => i + 401));
    expect(links(three)).toEqual({ first: '?after=0', prev: '?after=200' });
    expect(three).toMatch(/<\/tbody><\/table>\n<p>Events 401–450\.<\/p>\n<nav>.*<\/nav>\n<\/body><\/html>\n$/);

    const past = await (await h.call('GET', `${path}?after=450`)).text();
    expect(rowIds(past)).toEqual([]);
    expect(past).toContain('No events after #450.');
    expect(links(past)).toEqual({ first: '?after=0', prev: '?after=250' });
  });

  it('has no link past a page that ends exactly at the last event', async () => {
    const h = await setup();
    const runId = await runWith(h, 200, (n) => `line ${n}`);
    const html = await (await h.call('GET', `/agent/runs/${runId}/transcript`)).text();
    expect(rowIds(html)).toHaveLength(200);
    expect(links(html)).toEqual({});
  });

  it('is produced as it is read: a client that does not read holds the store reads back', async () => {
    const h = await setup();
    const runId = await runWith(h, 200, () => 'z'.repeat(16_000));
    let eventsRead = 0;
    const list = h.store.runEvents.list.bind(h.store.runEvents);
    h.store.runEvents.list = async (id, query) => {
      const page = await list(id, query);
      eventsRead += page.length;
      return page;
    };
    const res = await h.call('GET', `/agent/runs/${runId}/transcript`);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await settle();
    // 3.2 MB of rows; a 256 KiB queue and a page in hand hold about a fifth of them.
    expect(eventsRead).toBeGreaterThan(0);
    expect(eventsRead).toBeLessThan(60);
    let chunks = 0;
    let html = '';
    const decoder = new TextDecoder();
    for (let c = await reader.read(); !c.done; c = await reader.read()) {
      chunks++;
      html += decoder.decode(c.value, { stream: true });
    }
    expect(chunks).toBeGreaterThan(10);
    expect(rowIds(html)).toHaveLength(200);
    expect(eventsRead).toBe(200);
  });

  it('answers HEAD with the page’s headers, without reading the transcript', async () => {
    const h = await setup();
    const runId = await runWith(h, 50, () => 'z'.repeat(16_000));
    let eventsRead = 0;
    const list = h.store.runEvents.list.bind(h.store.runEvents);
    h.store.runEvents.list = async (id, query) => {
      const page = await list(id, query);
      eventsRead += page.length;
      return page;
    };
    const res = await h.call('HEAD', `/agent/runs/${runId}/transcript`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await res.text()).toBe('');
    await settle();
    expect(eventsRead).toBe(0);
  });

  it('answers a bad `after` or an unknown parameter with 400', async () => {
    const h = await setup();
    const runId = await runWith(h, 1, () => 'x');
    for (const query of ['after=-1', 'after=x', 'after=1e3', 'limit=5']) {
      await expectProblem(await h.call('GET', `/agent/runs/${runId}/transcript?${query}`), 400, 'invalid_request');
    }
  });
});
