"""
Auto-pagination over a keyset-paged list (docs/run-api.md, "List runs"): each page's
``page_info.next_cursor`` is the next page's ``cursor``, until a page has none. A page that is not
one, or a cursor given before, is an ``APIResponseError``: paging on would never end (a server
that repeats a cursor, a proxy that caches a page).
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, List, Optional, Set, TypeVar

from ._errors import APIResponseError

Item = TypeVar("Item")
Page = TypeVar("Page")


def paginate(fetch_page: Callable[[Optional[str]], Page], items: Callable[[Page], List[Item]]) -> Iterator[Item]:
    """Every item of every page, fetching a page only when the previous one is used up (so ``break`` stops the requests)."""
    seen: Set[str] = set()
    cursor: Optional[str] = None
    while True:
        page = fetch_page(cursor)
        answer: Any = page
        try:
            page_items: Any = items(page) if isinstance(answer, dict) else None
        except (KeyError, TypeError):
            page_items = None
        page_info = answer.get("page_info") if isinstance(answer, dict) else None
        next_cursor = page_info.get("next_cursor") if isinstance(page_info, dict) else None
        if not isinstance(page_items, list) or not isinstance(page_info, dict) or not isinstance(next_cursor, (str, type(None))):
            raise APIResponseError("the server answered a page that is not one (no list of items, no page_info, or a cursor that is not a string)")
        yield from page_items
        if not next_cursor:
            return
        if next_cursor in seen:
            raise APIResponseError(f"the server answered a page cursor it had answered before ({next_cursor[:40]!r}); stopped paging")
        seen.add(next_cursor)
        cursor = next_cursor
