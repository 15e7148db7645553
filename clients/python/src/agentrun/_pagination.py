"""
Auto-pagination over a keyset-paged list (docs/run-api.md, "List runs"): each page's
``page_info.next_cursor`` is the next page's ``cursor``, until a page has none.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, List, Optional, TypeVar, cast

Item = TypeVar("Item")
Page = TypeVar("Page")


def paginate(fetch_page: Callable[[Optional[str]], Page], items: Callable[[Page], List[Item]]) -> Iterator[Item]:
    """Every item of every page, fetching a page only when the previous one is used up (so ``break`` stops the requests)."""
    cursor: Optional[str] = None
    while True:
        page = fetch_page(cursor)
        yield from items(page)
        page_info = cast(Any, page).get("page_info") or {}
        next_cursor = page_info.get("next_cursor")
        if not next_cursor:
            return
        cursor = str(next_cursor)
