"""``client.api_keys``: the team's API keys (docs/management-api.md, "API keys"); a key is answered once, by ``create``."""

from __future__ import annotations

from typing import ClassVar, Dict, List, Optional, cast

from ..types import ApiKeyCreated, ApiKeyList
from ._base import Resource


class ApiKeys(Resource):
    """Create, list and revoke API keys (the caller's key needs the ``manage_keys`` scope)."""

    operations: ClassVar[Dict[str, str]] = {"create": "createApiKey", "list": "listApiKeys", "revoke": "revokeApiKey"}
    """Each method's operation (tests/test_operations.py proves every operation has a method)."""

    def create(
        self,
        name: str,
        scopes: List[str],
        *,
        expires_at: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> ApiKeyCreated:
        """Create a key with these scopes (and an RFC 3339 expiry); the answer's ``key`` is shown this once."""
        body: Dict[str, object] = {"name": name, "scopes": scopes}
        if expires_at is not None:
            body["expires_at"] = expires_at
        return cast(ApiKeyCreated, self._client.request("createApiKey", body=body, timeout=timeout, max_retries=max_retries))

    def list(self, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> ApiKeyList:
        """The team's keys not revoked, newest first (never a key)."""
        return cast(ApiKeyList, self._client.request("listApiKeys", timeout=timeout, max_retries=max_retries))

    def revoke(self, key_id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        """Revoke a key by its ID: every server refuses it from its next request."""
        self._client.request("revokeApiKey", params={"keyId": key_id}, timeout=timeout, max_retries=max_retries)
