/** `page_info` of a list answer (models/run.ts `PageInfo`). */
export type KeysetPageInfo = { has_next_page: true; next_cursor: string } | { has_next_page: false };

/**
 * One page of a keyset-paged list from the rows a store returned for `limit + 1`: the extra row
 * is never shown, it only tells that another page follows, and that page starts after the last
 * row shown (docs/run-api.md, "Cursors"; the delivery log pages the same way).
 */
export function keysetPage<T>(
  rows: readonly T[],
  limit: number,
  cursorAfter: (last: T) => string,
): { page: T[]; pageInfo: KeysetPageInfo } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    page,
    pageInfo:
      rows.length > limit && last !== undefined ? { has_next_page: true, next_cursor: cursorAfter(last) } : { has_next_page: false },
  };
}
