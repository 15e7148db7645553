import { EVENT_PAGE_BYTES } from '../models/run-events.js';
import type { Store } from '../store/store.js';
import { utf8Length } from '../util/utf8-length.js';
import { toRunEventView } from './run-event-view.js';

// One page of a run's events, built as the JSON text it is sent as and bounded in bytes as well as
// in events (docs/run-api.md, "A page"). Each event is measured as it is serialized, so what counts
// is what goes on the wire (escapes and multi-byte characters included), and the store is asked
// for events in reads bounded by the bytes the page has left (`maxBytes`), so a page of large events
// never holds more than its budget and one event beyond it.

/** A page of events as its response body. */
export interface EventPage {
  /** `{"events":[…],"page_info":{…}}`: at most the budget in UTF-8 bytes, unless it holds one event. */
  body: string;
  /** How many events it holds. */
  count: number;
  /** Whether events follow the last one shown (`page_info.has_next_page`). */
  hasNextPage: boolean;
}

const OPEN = '{"events":[';
const close = (nextCursor: number | undefined) =>
  nextCursor === undefined
    ? '],"page_info":{"has_next_page":false}}'
    : `],"page_info":{"has_next_page":true,"next_cursor":${JSON.stringify(String(nextCursor))}}}`;
/** What the body takes besides its events, at most (a cursor of 16 digits is beyond any event id). */
const FRAME_BYTES = OPEN.length + close(10 ** 15).length;

/** The first read, before any event was measured; later reads are sized by what the page has left. */
const FIRST_READ = 4;

/**
 * Events of `runId` after `after`, ascending, at most `limit` and at most `budget` bytes of body
 * (but always the first event, however large, so a reader always moves on); `has_next_page` when
 * another event follows, whichever bound stopped the page. The body is the same text
 * `JSON.stringify` makes of `{ events, page_info }`.
 */
export async function buildEventPage(
  store: Store,
  runId: string,
  after: number,
  limit: number,
  budget: number = EVENT_PAGE_BYTES,
): Promise<EventPage> {
  let body = OPEN;
  let bytes = FRAME_BYTES;
  let count = 0;
  let last = after;
  let more = false;
  // One more than `limit`: the extra event is never shown, it only tells that another page follows.
  let want = Math.min(FIRST_READ, limit + 1);
  reading: for (;;) {
    const maxBytes = Math.max(1, budget - bytes);
    const rows = await store.runEvents.list(runId, { after: last, limit: want, maxBytes });
    let stored = 0;
    for (const row of rows) {
      stored += row.size ?? 0;
      if (count === limit) {
        more = true;
        break reading;
      }
      const text = JSON.stringify(toRunEventView(row));
      const size = utf8Length(text) + (count > 0 ? 1 : 0);
      if (count > 0 && bytes + size > budget) {
        more = true;
        break reading;
      }
      body += count > 0 ? `,${text}` : text;
      bytes += size;
      count++;
      last = row.id;
    }
    // A short read is the log's end, unless the store stopped at the bytes it was allowed.
    if (rows.length === 0 || (rows.length < want && stored < maxBytes)) break;
    const perEvent = (bytes - FRAME_BYTES) / count;
    want = Math.min(limit + 1 - count, Math.max(1, Math.ceil((budget - bytes) / perEvent) + 1));
  }
  return { body: body + close(more ? last : undefined), count, hasNextPage: more };
}
