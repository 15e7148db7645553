"""``client.artifacts``: what runs' agents reported (docs/artifacts.md; docs/python.md, "Artifacts")."""

from __future__ import annotations

from typing import Any, ClassVar, Dict, List, Optional, cast
from urllib.parse import parse_qs, urlsplit

from ..types import Artifact, ArtifactItem
from ._base import Resource


class Artifacts(Resource):
    """A run's artifacts, one artifact, and a stored one's bytes (through its signed link)."""

    operations: ClassVar[Dict[str, str]] = {
        "get": "getArtifact",
        "download": "downloadArtifact",
    }
    """Each method's operation (tests/test_operations.py proves every operation has a method)."""

    def list(self, run_id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> List[ArtifactItem]:
        """A run's artifacts, in the order its agent reported them (the run's ``artifacts``; none: ``[]``)."""
        run = self._client.runs.get(run_id, timeout=timeout, max_retries=max_retries)
        return list(run.get("artifacts", []))

    def get(self, artifact_uid: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Artifact:
        """
        One artifact; a screenshot's, file's or plan's bytes behind ``data["download_url"]`` (no
        API key needed) until ``data["expires_at"]``.
        """
        return cast(
            Artifact,
            self._client.request("getArtifact", params={"artifactUid": artifact_uid}, timeout=timeout, max_retries=max_retries),
        )

    def download(self, artifact_uid: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> bytes:
        """An artifact's bytes: a fresh signed link asked for, then opened."""
        artifact = self.get(artifact_uid, timeout=timeout, max_retries=max_retries)
        data: Dict[str, Any] = dict(artifact.get("data", {}))
        link = data.get("download_url")
        if not isinstance(link, str):
            raise ValueError(f"artifact {artifact_uid} ({artifact.get('artifact_type')}) has no stored content to download")
        query = parse_qs(urlsplit(link).query)
        return cast(
            bytes,
            self._client.request(
                "downloadArtifact",
                params={"artifactUid": artifact_uid},
                query={"expires": query.get("expires", [""])[0], "signature": query.get("signature", [""])[0]},
                timeout=timeout,
                max_retries=max_retries,
            ),
        )
