"""``client.sources``: a factory's source repository (docs/repositories.md, "Factories from a repository")."""

from __future__ import annotations

from typing import Any, ClassVar, Dict, Iterator, List, Mapping, Optional, cast

from .._pagination import paginate
from ._base import Resource, given


class Sources(Resource):
    """Set, read and clear a factory's source; list the commits applied from it; sync it now (changes and syncs need ``manage_factory``)."""

    operations: ClassVar[Dict[str, str]] = {
        "set": "putFactorySource",
        "get": "getFactorySource",
        "clear": "deleteFactorySource",
        "applies": "listFactorySourceApplies",
        "applies_page": "listFactorySourceApplies",
        "sync": "syncFactorySource",
    }
    """Each method's operation (tests/test_operations.py proves every operation has a method)."""

    def set(
        self, factory_uid: str, body: Mapping[str, Any], *, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> Dict[str, Any]:
        """Set or replace the source: ``{repository, branch?, directory?, push_scheme?, push_secret?}``."""
        return cast(
            Dict[str, Any],
            self._client.request(
                "putFactorySource", params={"factoryUid": factory_uid}, body=dict(body), timeout=timeout, max_retries=max_retries
            ),
        )

    def get(self, factory_uid: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Dict[str, Any]:
        """The source, with ``last_apply`` (the newest, whatever its outcome) and ``last_applied`` (the newest that applied)."""
        return cast(
            Dict[str, Any],
            self._client.request("getFactorySource", params={"factoryUid": factory_uid}, timeout=timeout, max_retries=max_retries),
        )

    def clear(self, factory_uid: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        """Clear the source; the factory keeps what was applied."""
        self._client.request("deleteFactorySource", params={"factoryUid": factory_uid}, timeout=timeout, max_retries=max_retries)

    def applies(
        self, factory_uid: str, *, limit: Optional[int] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> Iterator[Dict[str, Any]]:
        """Every apply of the source, newest first, page after page."""

        def page(cursor: Optional[str]) -> Dict[str, Any]:
            return self.applies_page(factory_uid, cursor=cursor, limit=limit, timeout=timeout, max_retries=max_retries)

        def items(page: Dict[str, Any]) -> List[Dict[str, Any]]:
            return cast(List[Dict[str, Any]], page["applies"])

        return paginate(page, items)

    def applies_page(
        self,
        factory_uid: str,
        *,
        cursor: Optional[str] = None,
        limit: Optional[int] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Dict[str, Any]:
        """One page of applies: ``{applies, page_info}``."""
        return cast(
            Dict[str, Any],
            self._client.request(
                "listFactorySourceApplies",
                params={"factoryUid": factory_uid},
                query=given(cursor=cursor, limit=limit),
                timeout=timeout,
                max_retries=max_retries,
            ),
        )

    def sync(self, factory_uid: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Dict[str, Any]:
        """Fetch the branch now and apply its head commit unless it has an apply: ``{commit, outcome, apply}``."""
        return cast(
            Dict[str, Any],
            self._client.request("syncFactorySource", params={"factoryUid": factory_uid}, body={}, timeout=timeout, max_retries=max_retries),
        )
