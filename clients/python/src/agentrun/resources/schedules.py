"""``client.schedules``: the team's schedules (docs/schedules.md): cron expressions that start runs."""

from __future__ import annotations

from typing import Any, ClassVar, Dict, Mapping, Optional, cast

from ._base import Resource


class Schedules(Resource):
    """Create, list, get, update, pause, resume and delete schedules (changes need the ``write_runs`` scope)."""

    operations: ClassVar[Dict[str, str]] = {
        "create": "createSchedule",
        "list": "listSchedules",
        "get": "getSchedule",
        "update": "updateSchedule",
        "delete": "deleteSchedule",
        "pause": "pauseSchedule",
        "resume": "resumeSchedule",
    }
    """Each method's operation (tests/test_operations.py proves every operation has a method)."""

    def create(
        self, body: Mapping[str, Any], *, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> Dict[str, Any]:
        """Create one: ``{name, cron_schedule, time_zone?, prompt?, agent_config?, enabled?}``, as docs/schedules.md says."""
        return cast(Dict[str, Any], self._client.request("createSchedule", body=dict(body), timeout=timeout, max_retries=max_retries))

    def list(self, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Dict[str, Any]:
        """The team's schedules, by name: ``{schedules: [...]}``."""
        return cast(Dict[str, Any], self._client.request("listSchedules", timeout=timeout, max_retries=max_retries))

    def get(self, schedule_id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Dict[str, Any]:
        """One schedule, with ``history`` (``last_ran``, ``next_run``) and ``last_spawn_error``."""
        return cast(
            Dict[str, Any],
            self._client.request("getSchedule", params={"scheduleId": schedule_id}, timeout=timeout, max_retries=max_retries),
        )

    def update(
        self, schedule_id: str, body: Mapping[str, Any], *, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> Dict[str, Any]:
        """Replace it: ``name``, ``cron_schedule`` and ``enabled`` required; the other fields, absent, keep their value."""
        return cast(
            Dict[str, Any],
            self._client.request(
                "updateSchedule", params={"scheduleId": schedule_id}, body=dict(body), timeout=timeout, max_retries=max_retries
            ),
        )

    def delete(self, schedule_id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Dict[str, Any]:
        """Delete it: ``{success: true}``; the runs it started stay."""
        return cast(
            Dict[str, Any],
            self._client.request("deleteSchedule", params={"scheduleId": schedule_id}, timeout=timeout, max_retries=max_retries),
        )

    def pause(self, schedule_id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Dict[str, Any]:
        """Pause it: no run starts until it is resumed."""
        return cast(
            Dict[str, Any],
            self._client.request("pauseSchedule", params={"scheduleId": schedule_id}, timeout=timeout, max_retries=max_retries),
        )

    def resume(self, schedule_id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Dict[str, Any]:
        """Resume it from its next due time (times missed while paused start nothing)."""
        return cast(
            Dict[str, Any],
            self._client.request("resumeSchedule", params={"scheduleId": schedule_id}, timeout=timeout, max_retries=max_retries),
        )
