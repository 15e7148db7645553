"""``client.agent_identities``: the team's agent identities (docs/run-api.md, "Agent identities")."""

from __future__ import annotations

from typing import Any, ClassVar, Dict, Mapping, Optional, cast

from ._base import Resource


class AgentIdentities(Resource):
    """Create, list, update and delete agent identities (changes need the ``manage_factory`` scope)."""

    operations: ClassVar[Dict[str, str]] = {
        "create": "createAgentIdentity",
        "list": "listAgentIdentities",
        "update": "updateAgentIdentity",
        "delete": "deleteAgentIdentity",
    }
    """Each method's operation (tests/test_operations.py proves every operation has a method)."""

    def create(
        self, body: Mapping[str, Any], *, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> Dict[str, Any]:
        """Create one: ``{name, description?, base_model?, prompt?}``, as docs/run-api.md says."""
        return cast(Dict[str, Any], self._client.request("createAgentIdentity", body=dict(body), timeout=timeout, max_retries=max_retries))

    def list(
        self, *, factory_uid: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> Dict[str, Any]:
        """The team's identities, oldest first: ``{agents: [...]}`` (none with ``factory_uid``: no identity is linked to a factory)."""
        query = {"factory_uid": factory_uid} if factory_uid is not None else None
        return cast(Dict[str, Any], self._client.request("listAgentIdentities", query=query, timeout=timeout, max_retries=max_retries))

    def update(
        self, identity_uid: str, body: Mapping[str, Any], *, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> Dict[str, Any]:
        """Change it: omitted or ``None`` fields stay as they are; ``""`` clears an optional one."""
        return cast(
            Dict[str, Any],
            self._client.request(
                "updateAgentIdentity", params={"identityUid": identity_uid}, body=dict(body), timeout=timeout, max_retries=max_retries
            ),
        )

    def delete(self, identity_uid: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        """Delete it (runs that named it keep its uid)."""
        self._client.request("deleteAgentIdentity", params={"identityUid": identity_uid}, timeout=timeout, max_retries=max_retries)
