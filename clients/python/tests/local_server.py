"""
The scaffolding the tests' own HTTP servers share (the stub server and the faulty proxy): a
threaded server on a free port of 127.0.0.1, each request read whole and recorded in ``seen``
before the subclass answers it.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Dict, List, Optional, Tuple


class LocalServer:
    """Listening on ``url`` from construction; ``close()`` stops it. Subclasses implement ``_answer``."""

    def __init__(self) -> None:
        self.seen: List[Tuple[str, str, Dict[str, str]]] = []
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base class's name)
                pass

            def do_GET(self) -> None:
                owner._receive(self)

            do_POST = do_PUT = do_PATCH = do_DELETE = do_GET

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        """Stop listening."""
        self._server.shutdown()
        self._server.server_close()

    def _receive(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("content-length") or 0)
        body = handler.rfile.read(length) if length else None
        headers = {name.lower(): value for name, value in handler.headers.items()}
        with self._lock:
            self.seen.append((handler.command, handler.path, headers))
        handler.close_connection = True
        self._answer(handler, headers, body)

    def _answer(self, handler: BaseHTTPRequestHandler, headers: Dict[str, str], body: Optional[bytes]) -> None:
        raise NotImplementedError
