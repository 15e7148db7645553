/**
 * Auto-pagination over a keyset-paged list (docs/run-api.md, "List runs"): each page's
 * `page_info.next_cursor` is the next page's `cursor`, until a page has none.
 */

/** Every item of every page, fetching a page only when the previous one is used up. */
export async function* paginate<Item, Page extends { page_info: { next_cursor?: string | undefined } }>(
  fetchPage: (cursor: string | undefined) => Promise<Page>,
  items: (page: Page) => readonly Item[],
): AsyncGenerator<Item, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* items(page);
    cursor = page.page_info.next_cursor || undefined;
  } while (cursor !== undefined);
}
