"""
``client.runs.stream()``: a run's transcript followed live over the server's Server-Sent Events
(docs/run-api.md, "Following a run live"; docs/python.md, "Following a run: stream()"). The TS
twin is packages/client/src/run-stream.ts.
"""

from __future__ import annotations

import codecs
import json
import time
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generator, Iterator, Optional, Type, cast

from ._errors import APIConnectionError, APIResponseError
from ._retry import retry_delay
from ._sse import SseParser
from .types import RunEvent

if TYPE_CHECKING:
    from ._client import Client


class RunStream(Iterator[RunEvent]):
    """
    Every event of a run after ``after``, as the server sends them, until the server ends the
    stream (the run finished). A dropped connection is opened again with ``Last-Event-ID`` set to
    the last event received, and events at or before it are skipped, so none is repeated or
    missed. ``close()`` (or leaving a ``with`` block, or a generator-style ``break`` once the
    stream is no longer referenced) closes the connection.
    """

    def __init__(self, client: Client, run_id: str, after: Optional[int], max_retries: int, idle_timeout: float) -> None:
        self.last_event_id: Optional[int] = after
        """The ID of the last event yielded (or ``after``): where a new stream would resume."""
        self._client = client
        self._run_id = run_id
        self._max_retries = max_retries
        self._idle_timeout = idle_timeout
        self._events = self._generate()

    def __iter__(self) -> RunStream:
        return self

    def __next__(self) -> RunEvent:
        return next(self._events)

    def close(self) -> None:
        """Stop following: the connection is closed, and the iteration ends."""
        self._events.close()

    def __enter__(self) -> RunStream:
        return self

    def __exit__(
        self, kind: Optional[Type[BaseException]], error: Optional[BaseException], traceback: Optional[TracebackType]
    ) -> None:
        self.close()

    def __del__(self) -> None:
        # A stream left without close() (a `break` out of a plain for loop) closes its connection
        # when it is collected; never raise from here (e.g. during interpreter shutdown).
        events = getattr(self, "_events", None)
        if events is not None:
            try:
                events.close()
            except Exception:  # noqa: BLE001
                pass

    def _generate(self) -> Generator[RunEvent, None, None]:
        run_id = self._run_id
        retries_left = self._max_retries
        while True:
            headers = {"accept": "text/event-stream"}
            if self.last_event_id is not None:
                headers["last-event-id"] = str(self.last_event_id)
            # Errors before the first byte (404, 401, …) are raised as their classes, after the
            # client's own retries for retryable ones.
            answer = self._client.open(
                "listRunEvents", params={"runId": run_id}, headers=headers, timeout=self._idle_timeout, max_retries=self._max_retries
            )
            try:
                content_type = answer.headers.get("content-type", "")
                if not content_type.startswith("text/event-stream"):
                    raise APIResponseError(f"run {run_id}: asked for text/event-stream, the server answered {content_type or 'no content type'}")
                decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
                parser = SseParser()
                try:
                    while True:
                        chunk = answer.read_chunk()
                        if not chunk:
                            return  # The server ended the stream: the run finished.
                        for sse in parser.push(decoder.decode(chunk)):
                            event = _parse_event(run_id, sse.data)
                            if self.last_event_id is not None and event["id"] <= self.last_event_id:
                                continue
                            self.last_event_id = event["id"]
                            retries_left = self._max_retries
                            yield event
                except APIConnectionError as error:
                    # Only a connection lost while reading (or silent too long) is resumed here:
                    # errors of opening it were retried by the client already.
                    if retries_left <= 0:
                        raise APIConnectionError(f"run {run_id}: the event stream dropped and could not be resumed ({error})") from error
            finally:
                answer.close()
            time.sleep(retry_delay(retries_left, self._max_retries, None))
            retries_left -= 1


def _parse_event(run_id: str, data: str) -> RunEvent:
    try:
        event: Any = json.loads(data)
    except ValueError:
        raise APIResponseError(f"run {run_id}: an event stream's data is not JSON: {data[:200]}") from None
    if not isinstance(event, dict) or isinstance(event.get("id"), bool) or not isinstance(event.get("id"), int):
        raise APIResponseError(f"run {run_id}: an event stream's data is not a run event: {data[:200]}")
    return cast(RunEvent, event)
