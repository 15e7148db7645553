"""
One HTTP attempt over the standard library's ``http.client``: a new connection per attempt, the
answer's status and headers, and its body read whole (or left open, for the run events' stream).
What went wrong without an answer comes back as the client's connection errors, so the retry loop
(``_client.py``) decides what to try again (docs/python.md, "Retries" and "Timeouts").
"""

from __future__ import annotations

import http.client
import socket
import ssl
from dataclasses import dataclass
from typing import Dict, Optional, Union

from ._errors import APIConnectionError, APIConnectionTimeoutError


@dataclass(frozen=True)
class Origin:
    """Where requests go: scheme, host, port, and the path agentrun is mounted under (no trailing slash)."""

    scheme: str
    host: str
    port: Optional[int]
    prefix: str


@dataclass
class Answer:
    """An answer's status and headers (names lower-cased), with its body read whole."""

    status: int
    headers: Dict[str, str]
    body: bytes


@dataclass
class OpenAnswer:
    """A successful answer whose body is still to be read (``read_chunk()``); ``close()`` ends the connection."""

    status: int
    headers: Dict[str, str]
    response: http.client.HTTPResponse
    connection: http.client.HTTPConnection

    def read_chunk(self) -> bytes:
        """The next bytes as they arrive (empty at the end); a drop or silence past the timeout raises the connection errors."""
        try:
            return self.response.read1(65536)
        except socket.timeout:
            raise APIConnectionTimeoutError("The event stream was silent longer than its idle timeout.") from None
        except (OSError, http.client.HTTPException) as error:
            raise APIConnectionError(f"Connection error: {error}") from error

    def close(self) -> None:
        """Close the connection (the server sees the client leave)."""
        self.connection.close()


def attempt(
    origin: Origin,
    method: str,
    target: str,
    body: Optional[bytes],
    headers: Dict[str, str],
    timeout: float,
    keep_open: bool = False,
) -> Union[Answer, OpenAnswer, APIConnectionError]:
    """
    One request: the answer, or the connection error that stood for none. ``timeout`` bounds the
    connect and each wait for bytes. With ``keep_open`` a 2xx answer's body is left unread.
    """
    connection = _connect(origin, timeout)
    try:
        connection.request(method, target, body=body, headers=headers)
        response = connection.getresponse()
        answer_headers = _headers(response)
        if keep_open and 200 <= response.status < 300:
            return OpenAnswer(response.status, answer_headers, response, connection)
        data = response.read()
    except socket.timeout:  # before OSError: TimeoutError is one since Python 3.10
        connection.close()
        return APIConnectionTimeoutError()
    except (OSError, http.client.HTTPException) as error:
        connection.close()
        return APIConnectionError(f"Connection error: {error}")
    connection.close()
    return Answer(response.status, answer_headers, data)


def _connect(origin: Origin, timeout: float) -> http.client.HTTPConnection:
    if origin.scheme == "https":
        return http.client.HTTPSConnection(origin.host, origin.port, timeout=timeout, context=ssl.create_default_context())
    return http.client.HTTPConnection(origin.host, origin.port, timeout=timeout)


def _headers(response: http.client.HTTPResponse) -> Dict[str, str]:
    """Header names lower-cased; a header sent several times is joined with ", ", as fetch's Headers does."""
    joined: Dict[str, str] = {}
    for name, value in response.getheaders():
        key = name.lower()
        joined[key] = f"{joined[key]}, {value}" if key in joined else value
    return joined
