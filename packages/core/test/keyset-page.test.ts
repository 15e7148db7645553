import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keysetPage } from '../src/util/keyset-page.js';

describe('keysetPage', () => {
  it('walks a list page by page: every row once, in order, and the last page says so', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer(), { maxLength: 40 }), fc.integer({ min: 1, max: 12 }), (values, limit) => {
        const sorted = [...values].sort((a, b) => a - b);
        // A store answering `limit + 1` rows after a position, as the stores do.
        const store = (after: number | undefined) => sorted.filter((v) => after === undefined || v > after).slice(0, limit + 1);

        const seen: number[] = [];
        let after: number | undefined;
        for (let pages = 0; ; pages++) {
          expect(pages).toBeLessThanOrEqual(sorted.length);
          const { page, pageInfo } = keysetPage(store(after), limit, (last) => String(last));
          expect(page.length).toBeLessThanOrEqual(limit);
          seen.push(...page);
          if (!pageInfo.has_next_page) break;
          expect(page).toHaveLength(limit);
          expect(pageInfo.next_cursor).toBe(String(page.at(-1)));
          after = Number(pageInfo.next_cursor);
        }
        expect(seen).toEqual(sorted);
      }),
    );
  });

  it('offers no next page for exactly `limit` rows, and one for `limit + 1`', () => {
    expect(keysetPage([1, 2], 2, String).pageInfo).toEqual({ has_next_page: false });
    expect(keysetPage([1, 2, 3], 2, String)).toEqual({ page: [1, 2], pageInfo: { has_next_page: true, next_cursor: '2' } });
    expect(keysetPage([], 2, String)).toEqual({ page: [], pageInfo: { has_next_page: false } });
  });
});
