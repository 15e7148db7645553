"""What every resource shares: the client it calls through, and how an optional body field is left out."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Dict

if TYPE_CHECKING:
    from .._client import Client


class Resource:
    """A group of operations over one client (``client.runs``, ``client.factories``, …)."""

    operations: ClassVar[Dict[str, str]] = {}
    """Each method's name and the route-table operation it calls."""

    def __init__(self, client: Client) -> None:
        self._client = client


def given(**fields: Any) -> Dict[str, Any]:
    """The fields that were given: ``None`` means "not sent" for the optional fields of a body or query."""
    return {name: value for name, value in fields.items() if value is not None}
