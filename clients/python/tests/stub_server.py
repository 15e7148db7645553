"""
A stub HTTP server answering scripted answers in order, for what the reference server cannot be
made to answer on purpose (403 without minting a key in its process, 422, 429, 5xx, any other
status, the retry headers, a stream that is not text/event-stream or carries bad data). Each
request's method, path and headers are recorded in ``seen``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Dict, List, Optional

from local_server import LocalServer


@dataclass
class Scripted:
    """One answer: status, headers, body (bytes)."""

    status: int
    body: bytes = b""
    headers: Dict[str, str] = field(default_factory=dict)


def problem(status: int, error: str, headers: Optional[Dict[str, str]] = None, **extra: object) -> Scripted:
    """A problem+json answer as agentrun writes them (docs/run-api.md, "Errors")."""
    body: Dict[str, object] = {"type": f"urn:agentrun:error:{error}", "title": error.replace("_", " ").capitalize()}
    body.update({"status": status, "error": error, "detail": f"stub {error}", "request_id": "req-stub"})
    body.update(extra)
    return Scripted(status, json.dumps(body).encode(), {"content-type": "application/problem+json", **(headers or {})})


class StubServer(LocalServer):
    """Listening on a free port of 127.0.0.1 (``url``); answers ``script`` in order, then 599s."""

    def __init__(self, script: List[Scripted]) -> None:
        self.script = list(script)
        super().__init__()

    def _answer(self, handler: BaseHTTPRequestHandler, headers: Dict[str, str], body: Optional[bytes]) -> None:
        with self._lock:
            answer = self.script.pop(0) if self.script else Scripted(599, b"script exhausted")
        handler.send_response(answer.status)
        for name, value in answer.headers.items():
            handler.send_header(name, value)
        handler.send_header("content-length", str(len(answer.body)))
        handler.send_header("connection", "close")
        handler.end_headers()
        handler.wfile.write(answer.body)
