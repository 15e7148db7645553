"""``client.stats``: the numbers of the dashboard's overview (docs/management-api.md, "Stats")."""

from __future__ import annotations

from typing import ClassVar, Dict, Optional, cast

from ..types import GetCallbackStatsResponse, GetDeliveryStatsResponse, GetQueueStatsResponse, GetRunDurationStatsResponse, GetRunStatsResponse
from ._base import Resource, given


class Stats(Resource):
    """One aggregate per chart, over the caller's team: ``range`` is ``"1h"``, ``"24h"`` (the default) or ``"7d"``."""

    operations: ClassVar[Dict[str, str]] = {
        "runs": "getRunStats",
        "run_durations": "getRunDurationStats",
        "deliveries": "getDeliveryStats",
        "queue": "getQueueStats",
        "callbacks": "getCallbackStats",
    }
    """Each method's operation (tests/test_operations.py proves every operation has a method)."""

    def runs(self, *, range: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> GetRunStatsResponse:
        """Runs created in each bucket of the range, one series per run state (the state each is in now)."""
        return cast(GetRunStatsResponse, self._client.request("getRunStats", query=given(range=range), timeout=timeout, max_retries=max_retries))

    def run_durations(
        self, *, range: Optional[str] = None, by: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> GetRunDurationStatsResponse:
        """p50 and p95 duration of the runs created in the range that ended, by ``"harness"`` (the default) or ``"name"``."""
        query = given(range=range, by=by)
        return cast(GetRunDurationStatsResponse, self._client.request("getRunDurationStats", query=query, timeout=timeout, max_retries=max_retries))

    def deliveries(
        self, *, range: Optional[str] = None, webhook_uid: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> GetDeliveryStatsResponse:
        """Deliveries in each bucket, per webhook, by label: Accepted, Filtered out, Duplicate, Rejected, Rate limited."""
        query = given(range=range, webhook_uid=webhook_uid)
        return cast(GetDeliveryStatsResponse, self._client.request("getDeliveryStats", query=query, timeout=timeout, max_retries=max_retries))

    def queue(self, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> GetQueueStatsResponse:
        """The queue now: how many runs wait, the oldest one's creation, by worker host, and how many run."""
        return cast(GetQueueStatsResponse, self._client.request("getQueueStats", timeout=timeout, max_retries=max_retries))

    def callbacks(self, *, range: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> GetCallbackStatsResponse:
        """Each callback endpoint's attempts in the range: delivered, failed, and the last failure; failing ones first."""
        return cast(GetCallbackStatsResponse, self._client.request("getCallbackStats", query=given(range=range), timeout=timeout, max_retries=max_retries))
