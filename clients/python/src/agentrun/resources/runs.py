"""``client.runs``: the run API (docs/run-api.md; docs/python.md, "Resources")."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar, Dict, Iterator, List, Literal, Mapping, Optional, Sequence, Union, cast

from .._pagination import paginate
from .._stream import RunStream
from .._wait import wait_for_run
from ..types import (
    AmbientAgentConfig,
    AttachmentInput,
    ImageInput,
    ListRunEventsResponse,
    ListRunsResponse,
    RunAgentResponse,
    RunFollowupResponse,
    RunItem,
    RunMode,
    RunState,
    SessionRedirect,
)
from ._base import Resource, given

Instant = Union[str, datetime]
"""An RFC 3339 instant, or a datetime (a naive one is read as UTC by the server)."""


class Runs(Resource):
    """Start, list, follow up, cancel, wait for and follow runs."""

    operations: ClassVar[Dict[str, str]] = {
        "create": "runAgent",
        "list": "listRuns",
        "list_page": "listRuns",
        "get": "getRun",
        "followup": "followupRun",
        "cancel": "cancelRun",
        "events": "listRunEvents",
        "stream": "listRunEvents",
        "wait": "getRun",
        "attachment": "getRunAttachment",
        "transcript": "getRunTranscript",
        "session_redirect": "checkSessionRedirect",
        "conversation_redirect": "checkConversationRedirect",
        "handoff_attachments": "listHandoffAttachments",
    }
    """Each method's operation (tests/test_operations.py proves every operation has a method)."""

    def create(
        self,
        *,
        prompt: Optional[str] = None,
        config: Optional[Union[AmbientAgentConfig, Mapping[str, Any]]] = None,
        title: Optional[str] = None,
        skill: Optional[str] = None,
        attachments: Optional[Sequence[AttachmentInput]] = None,
        images: Optional[Sequence[ImageInput]] = None,
        agent_identity_uid: Optional[str] = None,
        conversation_id: Optional[str] = None,
        parent_run_id: Optional[str] = None,
        team: Optional[bool] = None,
        interactive: Optional[bool] = None,
        mode: Optional[RunMode] = None,
        metadata: Optional[Mapping[str, str]] = None,
        on_behalf_of: Optional[str] = None,
        source: Optional[Literal["API", "CLI"]] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> RunAgentResponse:
        """
        Start a run from a ``prompt`` (or a ``skill``) and an optional ``config``
        (docs/run-api.md, "Start a run"). Its ``Idempotency-Key`` (``idempotency_key``, else a new
        UUID) is kept across retries, so a retried create makes one run.
        """
        body = given(
            prompt=prompt,
            config=dict(config) if config is not None else None,
            title=title,
            skill=skill,
            attachments=list(attachments) if attachments is not None else None,
            images=list(images) if images is not None else None,
            agent_identity_uid=agent_identity_uid,
            conversation_id=conversation_id,
            parent_run_id=parent_run_id,
            team=team,
            interactive=interactive,
            mode=mode,
            metadata=dict(metadata) if metadata is not None else None,
            on_behalf_of=on_behalf_of,
            source=source,
        )
        return cast(
            RunAgentResponse,
            self._client.request("runAgent", body=body, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries),
        )

    def list(
        self,
        *,
        state: Optional[Union[RunState, Sequence[RunState]]] = None,
        limit: Optional[int] = None,
        sort_by: Optional[str] = None,
        sort_order: Optional[str] = None,
        name: Optional[str] = None,
        model_id: Optional[str] = None,
        environment_id: Optional[str] = None,
        skill_spec: Optional[str] = None,
        creator: Optional[str] = None,
        source: Optional[str] = None,
        created_after: Optional[Instant] = None,
        created_before: Optional[Instant] = None,
        updated_after: Optional[Instant] = None,
        q: Optional[str] = None,
        factory_uid: Optional[str] = None,
        automation_id: Optional[str] = None,
        ancestor_run_id: Optional[str] = None,
        artifact_type: Optional[str] = None,
        execution_location: Optional[str] = None,
        executor: Optional[str] = None,
        metadata: Optional[Mapping[str, str]] = None,
        extra_query: Optional[Mapping[str, Any]] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Iterator[RunItem]:
        """
        Every run matching the filters, page after page: ``for run in client.runs.list(state=["FAILED"])``.
        A page (``limit`` runs, 1–500) is fetched only when the previous one is used up. Filters are
        those of docs/run-api.md, "List runs"; ``extra_query`` sends any other parameter as is.
        Newest created first unless ``sort_by`` says otherwise: a walk by ``created_at`` never skips
        or repeats a run that changes meanwhile, which one by ``updated_at`` (the API's default) can
        (docs/run-api.md, "Walking every run").
        """
        if sort_by is None:
            sort_by = "created_at"
        query = _runs_query(locals())

        def page(cursor: Optional[str]) -> ListRunsResponse:
            return self.list_page(cursor=cursor, extra_query=query, timeout=timeout, max_retries=max_retries)

        def runs(page: ListRunsResponse) -> List[RunItem]:
            return page["runs"]

        return paginate(page, runs)

    def list_page(
        self,
        *,
        cursor: Optional[str] = None,
        state: Optional[Union[RunState, Sequence[RunState]]] = None,
        limit: Optional[int] = None,
        sort_by: Optional[str] = None,
        sort_order: Optional[str] = None,
        name: Optional[str] = None,
        model_id: Optional[str] = None,
        environment_id: Optional[str] = None,
        skill_spec: Optional[str] = None,
        creator: Optional[str] = None,
        source: Optional[str] = None,
        created_after: Optional[Instant] = None,
        created_before: Optional[Instant] = None,
        updated_after: Optional[Instant] = None,
        q: Optional[str] = None,
        factory_uid: Optional[str] = None,
        automation_id: Optional[str] = None,
        ancestor_run_id: Optional[str] = None,
        artifact_type: Optional[str] = None,
        execution_location: Optional[str] = None,
        executor: Optional[str] = None,
        metadata: Optional[Mapping[str, str]] = None,
        extra_query: Optional[Mapping[str, Any]] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> ListRunsResponse:
        """
        One page of runs (with its ``page_info``), for a caller that keeps cursors itself; in the
        API's order (most recently updated first) unless ``sort_by`` says otherwise.
        """
        query = _runs_query(locals())
        return cast(ListRunsResponse, self._client.request("listRuns", query=query, timeout=timeout, max_retries=max_retries))

    def get(self, run_id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> RunItem:
        """One run."""
        return cast(RunItem, self._client.request("getRun", params={"runId": run_id}, timeout=timeout, max_retries=max_retries))

    def followup(
        self,
        run_id: str,
        message: str,
        *,
        mode: Optional[RunMode] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> RunFollowupResponse:
        """Send a follow-up message to a run (a SUCCEEDED or FAILED run is queued again)."""
        return cast(
            RunFollowupResponse,
            self._client.request(
                "followupRun",
                params={"runId": run_id},
                body=given(message=message, mode=mode),
                idempotency_key=idempotency_key,
                timeout=timeout,
                max_retries=max_retries,
            ),
        )

    def cancel(
        self, run_id: str, *, idempotency_key: Optional[str] = None, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> str:
        """
        Cancel a run in any active state (queued, claimed, pending, in progress or blocked); answers
        the run's ID. A run that already ended is a ``BadRequestError``.
        """
        return cast(
            str,
            self._client.request(
                "cancelRun", params={"runId": run_id}, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries
            ),
        )

    def events(
        self,
        run_id: str,
        *,
        after: Optional[int] = None,
        limit: Optional[int] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> ListRunEventsResponse:
        """One page of the run's transcript events after event ``after`` (``limit`` 1–1000)."""
        return cast(
            ListRunEventsResponse,
            self._client.request(
                "listRunEvents",
                params={"runId": run_id},
                query=given(after=after, limit=limit),
                timeout=timeout,
                max_retries=max_retries,
            ),
        )

    def stream(
        self, run_id: str, *, after: Optional[int] = None, max_retries: Optional[int] = None, idle_timeout: Optional[float] = None
    ) -> RunStream:
        """
        The run's events live, over Server-Sent Events: ``for event in client.runs.stream(run_id)``.
        Starts after event ``after`` (default: the whole transcript); ends when the run finishes.
        A dropped connection (or one silent for ``idle_timeout`` seconds, default the client's
        ``timeout``) is resumed with ``Last-Event-ID``, up to ``max_retries`` drops in a row.
        Use ``with client.runs.stream(run_id) as events:`` to close the connection on leaving.
        """
        if not isinstance(run_id, str) or run_id == "":
            raise ValueError(f"runs.stream: run_id must be a non-empty string, got {run_id!r}")
        retries = self._client.max_retries if max_retries is None else max_retries
        idle = self._client.timeout if idle_timeout is None else idle_timeout
        if isinstance(idle, bool) or not isinstance(idle, (int, float)) or not idle > 0:
            raise ValueError(f"runs.stream: idle_timeout must be a number of seconds > 0, got {idle_timeout!r}")
        return RunStream(self._client, run_id, after, retries, float(idle))

    def wait(self, run_id: str, *, poll_interval: float = 1.0, timeout: Optional[float] = None) -> RunItem:
        """
        The run once it is finished (SUCCEEDED, FAILED, ERROR or CANCELLED), looking every
        ``poll_interval`` seconds; past ``timeout`` seconds (default: none) ``WaitTimeoutError``.
        """
        return wait_for_run(self._client, run_id, poll_interval, timeout)

    def attachment(self, run_id: str, file_name: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> bytes:
        """An attachment's bytes."""
        return cast(
            bytes,
            self._client.request(
                "getRunAttachment", params={"runId": run_id, "fileName": file_name}, timeout=timeout, max_retries=max_retries
            ),
        )

    def session_redirect(self, session_uuid: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> SessionRedirect:
        """
        Whether a session (a run's ``session_id``) should be shown as its conversation:
        ``{"conversation_id": …}`` once its newest run has ended, ``{}`` while it runs
        (docs/run-api.md, "Session redirect").
        """
        return cast(
            SessionRedirect,
            self._client.request("checkSessionRedirect", params={"sessionUuid": session_uuid}, timeout=timeout, max_retries=max_retries),
        )

    def handoff_attachments(self, run_id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Dict[str, Any]:
        """The hand-off snapshot files of the run's latest execution: ``{"attachments": []}`` in agentrun (docs/run-api.md)."""
        return cast(
            Dict[str, Any], self._client.request("listHandoffAttachments", params={"runId": run_id}, timeout=timeout, max_retries=max_retries)
        )

    def conversation_redirect(
        self, conversation_id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None
    ) -> Dict[str, Any]:
        """
        The live session of a conversation agentrun started: ``{"session_id": …}`` while its newest
        run is not finished, else ``{}`` (a public call; docs/run-api.md, "Conversation redirect").
        """
        return cast(
            Dict[str, Any],
            self._client.request(
                "checkConversationRedirect", params={"conversationId": conversation_id}, timeout=timeout, max_retries=max_retries
            ),
        )

    def transcript(self, run_id: str, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> str:
        """The run's transcript page, as HTML."""
        return cast(str, self._client.request("getRunTranscript", params={"runId": run_id}, timeout=timeout, max_retries=max_retries))


_NOT_QUERY = ("self", "timeout", "max_retries", "extra_query")


def _runs_query(arguments: Dict[str, Any]) -> Dict[str, Any]:
    """The list filters among a method's arguments, with ``extra_query`` merged in."""
    query = {name: value for name, value in arguments.items() if name not in _NOT_QUERY and value is not None}
    state = query.get("state")
    if isinstance(state, str):
        query["state"] = [state]
    elif state is not None:
        query["state"] = list(state)
    query.update(arguments.get("extra_query") or {})
    return query
