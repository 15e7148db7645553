"""``client.environments``: the team's environments (docs/repositories.md, "Environments"): what a run's ``environment_id`` selects."""

from __future__ import annotations

from typing import Any, ClassVar, Dict, Mapping, Optional, cast

from ._base import Resource


class Environments(Resource):
    """Create, list, get, replace and delete environments (changes need the ``manage_factory`` scope)."""

    operations: ClassVar[Dict[str, str]] = {
        "create": "createEnvironment",
        "list": "listEnvironments",
        "get": "getEnvironment",
        "replace": "replaceEnvironment",
        "delete": "deleteEnvironment",
        "list_as_python_client": "listCloudEnvironments",
    }
    """Each method's operation (tests/test_operations.py proves every operation has a method)."""

    def create(
        self, body: Mapping[str, Any], *, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> Dict[str, Any]:
        """Create one: ``{name, repositories, setup, variables, setup_timeout_seconds, image, limits}``, as docs/repositories.md says.

        ``image`` (an OCI image reference) and ``limits`` (``{memory_mb, cpus, pids, network}``, each optional) are for a
        container executor (docs/repositories.md, "Container image and limits").
        """
        return cast(Dict[str, Any], self._client.request("createEnvironment", body=dict(body), timeout=timeout, max_retries=max_retries))

    def list(self, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Dict[str, Any]:
        """The team's environments, by name: ``{environments: [...]}``."""
        return cast(Dict[str, Any], self._client.request("listEnvironments", timeout=timeout, max_retries=max_retries))

    def list_as_python_client(
        self, *, sort_by: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> Dict[str, Any]:
        """The environments in the published Python client's ``CloudEnvironment`` shape, each with its newest run."""
        query = {"sort_by": sort_by} if sort_by is not None else None
        return cast(Dict[str, Any], self._client.request("listCloudEnvironments", query=query, timeout=timeout, max_retries=max_retries))

    def get(self, environment_id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Dict[str, Any]:
        """One environment."""
        return cast(
            Dict[str, Any],
            self._client.request("getEnvironment", params={"environmentId": environment_id}, timeout=timeout, max_retries=max_retries),
        )

    def replace(
        self, environment_id: str, body: Mapping[str, Any], *, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> Dict[str, Any]:
        """Replace it whole, keeping its id (not one a definition file defines): ``image`` and ``limits`` left out or ``None`` are cleared."""
        return cast(
            Dict[str, Any],
            self._client.request(
                "replaceEnvironment", params={"environmentId": environment_id}, body=dict(body), timeout=timeout, max_retries=max_retries
            ),
        )

    def delete(self, environment_id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> None:
        """Delete it (not one a definition file defines)."""
        self._client.request("deleteEnvironment", params={"environmentId": environment_id}, timeout=timeout, max_retries=max_retries)
