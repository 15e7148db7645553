"""``client.audit``: the team's audit log (docs/management-api.md, "The audit log"; docs/operations.md, "Audit")."""

from __future__ import annotations

from typing import ClassVar, Dict, Iterator, List, Optional, Sequence, Union, cast

from .._pagination import paginate
from ..types import AuditEvent, AuditList
from ._base import Resource, given


class Audit(Resource):
    """Read the audit log, newest first (the caller's key needs ``manage_factory``)."""

    operations: ClassVar[Dict[str, str]] = {"list": "listAuditEvents", "list_page": "listAuditEvents"}
    """Each method's operation (tests/test_operations.py proves every operation has a method)."""

    def list(
        self,
        *,
        kind: Optional[Union[str, Sequence[str]]] = None,
        actor: Optional[str] = None,
        target: Optional[str] = None,
        since: Optional[str] = None,
        until: Optional[str] = None,
        limit: Optional[int] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Iterator[AuditEvent]:
        """Every event matching the filters, newest first, page after page."""

        def page(cursor: Optional[str]) -> AuditList:
            return self.list_page(
                kind=kind, actor=actor, target=target, since=since, until=until, cursor=cursor, limit=limit, timeout=timeout, max_retries=max_retries
            )

        def events(page: AuditList) -> List[AuditEvent]:
            return page["events"]

        return paginate(page, events)

    def list_page(
        self,
        *,
        kind: Optional[Union[str, Sequence[str]]] = None,
        actor: Optional[str] = None,
        target: Optional[str] = None,
        since: Optional[str] = None,
        until: Optional[str] = None,
        cursor: Optional[str] = None,
        limit: Optional[int] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> AuditList:
        """One page of the audit log; ``kind`` is one kind or several, ``since``/``until`` RFC 3339 instants."""
        kinds = [kind] if isinstance(kind, str) else (list(kind) if kind is not None else None)
        query = given(kind=kinds, actor=actor, target=target, since=since, until=until, cursor=cursor, limit=limit)
        return cast(AuditList, self._client.request("listAuditEvents", query=query, timeout=timeout, max_retries=max_retries))
