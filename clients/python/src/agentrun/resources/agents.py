"""``client.agents``: the skills the team can run (docs/repositories.md), and the agent CLIs the server runs them with."""

from __future__ import annotations

from typing import ClassVar, Dict, Optional, cast

from ..types import AgentList, HarnessList
from ._base import Resource, given


class Agents(Resource):
    """The skills the team can run, as the published clients' ``agent.list()``, and the harnesses a run may name."""

    operations: ClassVar[Dict[str, str]] = {"list": "listAgents", "harnesses": "listHarnesses"}
    """Each method's operation (tests/test_operations.py proves every operation has a method)."""

    def list(
        self,
        *,
        repo: Optional[str] = None,
        sort_by: Optional[str] = None,
        include_malformed_skills: Optional[bool] = None,
        refresh: Optional[bool] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> AgentList:
        """One agent per skill name; ``sort_by`` is ``name`` or ``last_run``; malformed skills only when asked."""
        query = given(repo=repo, sort_by=sort_by, include_malformed_skills=include_malformed_skills, refresh=refresh)
        return cast(AgentList, self._client.request("listAgents", query=query, timeout=timeout, max_retries=max_retries))

    def harnesses(self, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> HarnessList:
        """The agent CLIs the server's executor runs, with their versions and the default: what a run's ``config.harness.type`` may name."""
        return cast(HarnessList, self._client.request("listHarnesses", timeout=timeout, max_retries=max_retries))
