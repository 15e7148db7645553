"""``client.workers``: the live workers (docs/operations.md, "Worker hosts")."""

from __future__ import annotations

from typing import ClassVar, Dict, Optional, cast

from ..types import ListWorkersResponse
from ._base import Resource


class Workers(Resource):
    """The live workers: each one's host, whether it takes unrouted runs, capacity, and the runs it holds (only the caller's team's ids)."""

    operations: ClassVar[Dict[str, str]] = {"list": "listWorkers"}
    """Each method's operation (tests/test_operations.py proves every operation has a method)."""

    def list(self, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> ListWorkersResponse:
        """The live workers, by host then id: ``runs_held`` counts every team's runs, ``runs`` lists the caller's team's ids."""
        return cast(ListWorkersResponse, self._client.request("listWorkers", timeout=timeout, max_retries=max_retries))
