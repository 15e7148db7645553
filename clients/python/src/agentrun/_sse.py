"""
A Server-Sent Events parser, as the HTML standard's "Parsing an event stream" reads one (the TS
twin is packages/client/src/sse.ts): lines end with CRLF, LF or CR; ``field: value`` lines (one
space after the colon dropped); lines starting with ``:`` are comments (the server's heartbeats);
an empty line dispatches the event. It takes text in chunks cut anywhere, even between a CR and
its LF, so it can be fed straight from a socket (docs/python.md, "Following a run: stream()").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional


@dataclass(frozen=True)
class ServerSentEvent:
    """One dispatched event: the last ``id`` seen so far, its ``event`` name (``message`` if none), its ``data`` lines joined with ``\\n``."""

    id: Optional[str]
    event: str
    data: str


class SseParser:
    """Feed it text with ``push()``; it answers the events each piece completed."""

    def __init__(self) -> None:
        self._buffer = ""
        self._after_cr = False  # the last chunk ended on a CR: an LF opening the next one belongs to it
        self._started = False
        self._last_id: Optional[str] = None
        self._event = ""
        self._data: List[str] = []

    def push(self, chunk: str) -> List[ServerSentEvent]:
        """Feed the next piece of text; answers the events it completed."""
        if chunk == "":
            return []
        text = chunk
        if self._after_cr and text.startswith("\n"):
            text = text[1:]
        self._after_cr = False
        if not self._started and text:
            self._started = True
            if text.startswith("\ufeff"):
                text = text[1:]
        self._buffer += text
        events: List[ServerSentEvent] = []
        start = 0
        i = 0
        buffer = self._buffer
        while i < len(buffer):
            c = buffer[i]
            if c == "\n" or c == "\r":
                event = self._line(buffer[start:i])
                if event is not None:
                    events.append(event)
                if c == "\r":
                    if i + 1 == len(buffer):
                        self._after_cr = True
                    elif buffer[i + 1] == "\n":
                        i += 1
                start = i + 1
            i += 1
        self._buffer = buffer[start:]
        return events

    def _line(self, line: str) -> Optional[ServerSentEvent]:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        field, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        elif field == "id" and "\0" not in value:
            self._last_id = value
        # Other fields (`retry`, unknown ones) are ignored: the client keeps its own backoff.
        return None

    def _dispatch(self) -> Optional[ServerSentEvent]:
        had_data = bool(self._data)
        event = ServerSentEvent(self._last_id, self._event or "message", "\n".join(self._data))
        self._event = ""
        self._data = []
        # An event with no data line is not dispatched (the standard); its id still counts.
        return event if had_data else None
