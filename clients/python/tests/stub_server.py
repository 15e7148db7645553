"""
A stub HTTP server answering scripted answers in order, for what the reference server cannot be
made to answer on purpose (403 without minting a key in its process, 422, 429, 5xx, any other
status, the retry headers, a stream that is not text/event-stream or carries bad data). Each
request's method, path and headers are recorded in ``seen``.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Dict, List, Optional, Tuple


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


class StubServer:
    """Listening on a free port of 127.0.0.1 (``url``); answers ``script`` in order, then 599s."""

    def __init__(self, script: List[Scripted]) -> None:
        self.script = list(script)
        self.seen: List[Tuple[str, str, Dict[str, str]]] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base class's name)
                pass

            def do_GET(self) -> None:
                stub._handle(self)

            do_POST = do_PUT = do_PATCH = do_DELETE = do_GET

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        """Stop listening."""
        self._server.shutdown()
        self._server.server_close()

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("content-length") or 0)
        if length:
            handler.rfile.read(length)
        with self._lock:
            self.seen.append((handler.command, handler.path, {k.lower(): v for k, v in handler.headers.items()}))
            answer = self.script.pop(0) if self.script else Scripted(599, b"script exhausted")
        handler.close_connection = True
        handler.send_response(answer.status)
        for name, value in answer.headers.items():
            handler.send_header(name, value)
        handler.send_header("content-length", str(len(answer.body)))
        handler.send_header("connection", "close")
        handler.end_headers()
        handler.wfile.write(answer.body)
