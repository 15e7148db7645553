"""``client.repositories``: the repositories a team's skills come from (docs/repositories.md)."""

from __future__ import annotations

from typing import ClassVar, Dict, Optional, Tuple, cast

from ..types import Repository, RepositoryList
from ._base import Resource, given


def _owner_repo(name: str) -> Tuple[str, str]:
    owner, _, repo = name.partition("/")
    if not owner or not repo:
        raise ValueError(f"repository name must be <owner>/<repo>, got {name!r}")
    return owner, repo


class Repositories(Resource):
    """Register, list, read and remove the team's repositories (a change needs ``manage_factory``)."""

    operations: ClassVar[Dict[str, str]] = {
        "create": "createRepository",
        "list": "listRepositories",
        "get": "getRepository",
        "delete": "deleteRepository",
    }
    """Each method's operation (tests/test_operations.py proves every operation has a method)."""

    def create(
        self,
        name: str,
        url: str,
        *,
        default_branch: Optional[str] = None,
        credential_secret: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Repository:
        """Register ``<owner>/<repo>`` at a clone URL; ``credential_secret`` names a team secret holding a read token."""
        body = given(name=name, url=url, default_branch=default_branch, credential_secret=credential_secret)
        return cast(
            Repository,
            self._client.request("createRepository", body=body, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries),
        )

    def list(self, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> RepositoryList:
        """The team's repositories, by name."""
        return cast(RepositoryList, self._client.request("listRepositories", timeout=timeout, max_retries=max_retries))

    def get(self, name: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Repository:
        """One repository, by ``<owner>/<repo>``."""
        owner, repo = _owner_repo(name)
        return cast(Repository, self._client.request("getRepository", params={"owner": owner, "repo": repo}, timeout=timeout, max_retries=max_retries))

    def delete(self, name: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        """Unregister a repository: its skills no longer resolve."""
        owner, repo = _owner_repo(name)
        self._client.request("deleteRepository", params={"owner": owner, "repo": repo}, timeout=timeout, max_retries=max_retries)
