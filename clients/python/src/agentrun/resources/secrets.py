"""``client.secrets``: the team's secrets (docs/management-api.md); values are write-only, never answered."""

from __future__ import annotations

from typing import ClassVar, Dict, Optional, cast

from ..types import Secret, SecretList
from ._base import Resource


class Secrets(Resource):
    """List, create or replace, and delete team secrets."""

    operations: ClassVar[Dict[str, str]] = {"list": "listSecrets", "put": "putSecret", "delete": "deleteSecret"}
    """Each method's operation (tests/test_operations.py proves every operation has a method)."""

    def list(self, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> SecretList:
        """The team's secrets, by name."""
        return cast(SecretList, self._client.request("listSecrets", timeout=timeout, max_retries=max_retries))

    def put(self, name: str, value: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Secret:
        """Create or replace a team secret (sealed at rest)."""
        return cast(
            Secret,
            self._client.request("putSecret", params={"name": name}, body={"value": value}, timeout=timeout, max_retries=max_retries),
        )

    def delete(self, name: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        """Delete a team secret no live webhook uses."""
        self._client.request("deleteSecret", params={"name": name}, timeout=timeout, max_retries=max_retries)
