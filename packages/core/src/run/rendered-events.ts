import type { RunEventRecord } from '../store/run-events.js';
import type { Store } from '../store/store.js';

// A run's events read from the store in pages sized by what they hold, for the bodies that stream
// them (the live event stream, the transcript page; docs/run-api.md, "Slow readers"). A page of
// `limit` events is as large as its events: 500 events of 16 KB are 8 MB held for one reader, so
// the page size follows the text the last page rendered to, and each read is bounded in bytes too
// (`maxBytes`), so one read of events larger than the last ones holds about `READ_BYTES` and one
// event, never `limit` large events.

/** Rendered text per page the reader aims at (UTF-16 code units, as `String#length` counts). */
const PAGE_CHARS = 128 * 1024;
/** The first page, before any event was measured, and the most any page asks for. */
const FIRST_PAGE = 16;
const MAX_PAGE = 500;
/** The most a store read returns, by the store's measure of the events (and one event past it). */
const READ_BYTES = 256 * 1024;

export interface RenderedEvent {
  event: RunEventRecord;
  text: string;
}

/**
 * A reader of `runId`'s events: `read(after, upTo)` yields each event with id above `after` (and
 * at most `upTo`, when given), rendered by `render`, one at a time, until the log has no more. The
 * page size carries over from one `read` to the next: a live stream reads again after each wake.
 * What it holds is about `PAGE_CHARS` of text, and at most one read: `READ_BYTES` and one event.
 */
export function renderedEventReader(store: Store, runId: string, render: (event: RunEventRecord) => string) {
  let limit = FIRST_PAGE;
  return async function* read(after: number, upTo = Number.POSITIVE_INFINITY): AsyncGenerator<RenderedEvent, void, undefined> {
    let cursor = after;
    for (;;) {
      const want = Math.min(limit, upTo - cursor);
      if (want <= 0) return;
      const page = await store.runEvents.list(runId, { after: cursor, limit: want, maxBytes: READ_BYTES });
      let chars = 0;
      let stored = 0;
      for (const event of page) {
        stored += event.size ?? 0;
        const text = render(event);
        chars += text.length;
        cursor = event.id;
        yield { event, text };
      }
      if (page.length > 0) limit = Math.max(1, Math.min(MAX_PAGE, Math.floor((PAGE_CHARS * page.length) / Math.max(chars, 1))));
      // A short read is the log's end, unless the store stopped at the bytes it was allowed.
      if (page.length === 0 || (page.length < want && stored < READ_BYTES)) return;
    }
  };
}
