import { APIResponseError } from './errors.js';

/**
 * Auto-pagination over a keyset-paged list (docs/run-api.md, "List runs"): each page's
 * `page_info.next_cursor` is the next page's `cursor`, until a page has none. A cursor that came
 * before would page forever (a server that repeats one, a proxy that caches a page), so it is an
 * `APIResponseError` instead.
 */

/** Every item of every page, fetching a page only when the previous one is used up. */
export async function* paginate<Item, Page extends { page_info: { next_cursor?: string | undefined } }>(
  fetchPage: (cursor: string | undefined) => Promise<Page>,
  items: (page: Page) => readonly Item[],
): AsyncGenerator<Item, void, undefined> {
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    const list: unknown = typeof page === 'object' && page !== null ? items(page) : undefined;
    const next: unknown = (page as { page_info?: { next_cursor?: unknown } } | null)?.page_info?.next_cursor;
    if (!Array.isArray(list) || (next !== undefined && next !== null && typeof next !== 'string'))
      throw new APIResponseError('the server answered a page that is not one (no list of items, or a cursor that is not a string)');
    yield* list as readonly Item[];
    cursor = (next as string | null | undefined) || undefined;
    if (cursor !== undefined) {
      if (seen.has(cursor))
        throw new APIResponseError(
          `the server answered a page cursor it had answered before (${JSON.stringify(cursor.slice(0, 40))}); stopped paging`,
        );
      seen.add(cursor);
    }
  } while (cursor !== undefined);
}
