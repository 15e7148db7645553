"""The marker of an argument that was not given, where ``None`` means JSON ``null`` (e.g. clearing a webhook's ``delivery_id_header``)."""

from __future__ import annotations

from typing import Any


class _Omitted:
    def __repr__(self) -> str:
        return "OMITTED"

    def __bool__(self) -> bool:
        return False


OMITTED: Any = _Omitted()
"""Not given: the field (or the whole body) is left out of the request."""
