import { createMemoryStore } from '@agentrun/store-memory';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EVENT_PAGE_BYTES } from '../src/models/run-events.js';
import { buildEventPage } from '../src/run/event-page.js';
import type { NewRunEvent, RunEventListQuery, RunEventRecord } from '../src/store/run-events.js';
import type { Store } from '../src/store/store.js';
import { makeRun } from '../src/testing/fixtures.js';
import { isoTime } from '../src/util/clock.js';
import { utf8Length } from '../src/util/utf8-length.js';

// A page of run events is cut at its byte budget, measured on the bytes sent (docs/run-api.md, "A
// page"); walking the pages gives every event once, in order, whatever the stores' reads return.

const encoded = (text: string) => new TextEncoder().encode(text).byteLength;
const at = (n: number) => isoTime(Date.UTC(2026, 0, 1) + n);
/** What the page reserves for its cursor beyond the digits actually sent (16 digits at most). */
const CURSOR_SLACK = 16;

/** Text whose bytes on the wire differ from its length: escapes, 2-, 3- and 4-byte characters. */
const wireText = fc
  .array(fc.tuple(fc.constantFrom('a', '\u0001', '"', '\n', 'é', '€', '😀'), fc.integer({ min: 0, max: 600 })), { maxLength: 4 })
  .map((parts) => parts.map(([c, n]) => c.repeat(n)).join(''));

/** A store that ignores `maxBytes`, as a store written before it may: pages must not depend on it. */
const ignoringMaxBytes = (store: Store): Store => ({
  ...store,
  runEvents: { ...store.runEvents, list: (runId, { maxBytes: _, ...query }) => store.runEvents.list(runId, query) },
});

/** Records every read and what it returned. */
function counting(store: Store) {
  const reads: { query: RunEventListQuery; rows: RunEventRecord[] }[] = [];
  const wrapped: Store = {
    ...store,
    runEvents: {
      ...store.runEvents,
      list: async (runId, query) => {
        const rows = await store.runEvents.list(runId, query);
        reads.push({ query, rows });
        return rows;
      },
    },
  };
  return { store: wrapped, reads };
}

async function runWith(store: Store, events: readonly NewRunEvent[]) {
  const run = makeRun();
  await store.runs.create({ run, attachments: [] });
  await store.runEvents.append(run.id, events);
  return run.id;
}

interface Walked {
  pages: { body: string; events: { id: number; data: unknown }[]; next: string | undefined }[];
}

async function walk(store: Store, runId: string, limit: number, budget: number): Promise<Walked> {
  const pages: Walked['pages'] = [];
  let after = 0;
  for (;;) {
    const page = await buildEventPage(store, runId, after, limit, budget);
    const parsed = JSON.parse(page.body) as {
      events: { id: number; data: unknown }[];
      page_info: { has_next_page: boolean; next_cursor?: string };
    };
    // The body is exactly what JSON.stringify makes of the page (so clients parse it as before).
    expect(JSON.stringify(parsed)).toBe(page.body);
    expect(page.count).toBe(parsed.events.length);
    expect(page.hasNextPage).toBe(parsed.page_info.has_next_page);
    pages.push({ body: page.body, events: parsed.events, next: parsed.page_info.next_cursor });
    if (!parsed.page_info.has_next_page) return { pages };
    expect(parsed.page_info.next_cursor).toBe(String(parsed.events.at(-1)?.id));
    after = Number(parsed.page_info.next_cursor);
    expect(pages.length).toBeLessThanOrEqual(1_000);
  }
}

describe('utf8Length', () => {
  it('counts what TextEncoder writes, lone surrogates as U+FFFD', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)) }),
        ),
        (text) => {
          expect(utf8Length(text)).toBe(encoded(text));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('buildEventPage', () => {
  it('cuts pages at the budget in bytes sent (one event alone may pass it), and the walk gives every event once, in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(wireText, { maxLength: 30 }),
        fc.integer({ min: 100, max: 12_000 }),
        fc.integer({ min: 1, max: 25 }),
        fc.boolean(),
        async (texts, budget, limit, storeBounds) => {
          const memory = createMemoryStore();
          const store = storeBounds ? memory : ignoringMaxBytes(memory);
          const events = texts.map((text, n): NewRunEvent => ({ at: at(n), type: 'output', data: { text } }));
          const runId = await runWith(memory, events);
          const all = await memory.runEvents.list(runId, { limit: 1_000 });
          const { pages } = await walk(store, runId, limit, budget);
          for (const [i, page] of pages.entries()) {
            const bytes = encoded(page.body);
            expect(page.events.length).toBeLessThanOrEqual(limit);
            if (page.events.length > 1) expect(bytes).toBeLessThanOrEqual(budget);
            if (i < pages.length - 1) expect(page.events.length).toBeGreaterThan(0);
            // Cut no earlier than it must: the next event would not have fitted.
            const next = pages[i + 1]?.events[0];
            if (next !== undefined && page.events.length < limit) {
              expect(bytes + 1 + encoded(JSON.stringify(next))).toBeGreaterThan(budget - CURSOR_SLACK);
            }
          }
          expect(pages.flatMap((p) => p.events.map((e) => [e.id, e.data]))).toEqual(all.map((e) => [e.id, e.data]));
        },
      ),
      { numRuns: 80 },
    );
  });

  it('reads the store in bounded reads: a page of 1,000 huge events never fetches more than its budget and one event', async () => {
    const memory = createMemoryStore();
    const huge = '\u0001'.repeat(100_000); // 600,000 bytes on the wire
    const runId = await runWith(
      memory,
      Array.from({ length: 40 }, (_, n): NewRunEvent => ({ at: at(n), type: 'followup', data: { message: huge } })),
    );
    const { store, reads } = counting(memory);
    const page = await buildEventPage(store, runId, 0, 1_000);
    expect(encoded(page.body)).toBeLessThanOrEqual(EVENT_PAGE_BYTES);
    expect(page.count).toBe(3);
    expect(page.hasNextPage).toBe(true);
    const fetched = reads.flatMap((r) => r.rows).length;
    expect(fetched).toBeLessThanOrEqual(page.count + 1);
  });

  it('answers an empty page past the end, and one event however large it is', async () => {
    const store = createMemoryStore();
    const runId = await runWith(store, [
      { at: at(0), type: 'artifact', data: { note: 'x'.repeat(50_000) } },
      { at: at(1), type: 'output', data: { text: 'small' } },
    ]);
    const first = await buildEventPage(store, runId, 0, 100, 1_000);
    expect(JSON.parse(first.body)).toMatchObject({ events: [{ id: 1 }], page_info: { has_next_page: true, next_cursor: '1' } });
    const second = await buildEventPage(store, runId, 1, 100, 1_000);
    expect(JSON.parse(second.body)).toMatchObject({ events: [{ id: 2 }], page_info: { has_next_page: false } });
    expect(JSON.parse((await buildEventPage(store, runId, 2, 100, 1_000)).body)).toEqual({
      events: [],
      page_info: { has_next_page: false },
    });
  });
});
