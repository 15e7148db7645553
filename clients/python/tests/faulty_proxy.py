"""
A small HTTP proxy in front of the reference server that misbehaves on purpose, one planned fault
per request in order, then forwards everything (docs/python.md, "What the tests prove"):

- ``"503"``: answers 503 (``retry-after-ms: 0``) without forwarding;
- ``"drop"``: forwards the request (the server does the work), then closes the connection
  without answering, as a lost answer;
- ``"hang"``: answers nothing until the client goes away;
- ``"slow"``: waits half a second, then forwards;
- ``"cut"``: forwards and passes the first ``CUT_AFTER`` bytes of the answer's body, then breaks
  the connection in the middle of a chunk;
- ``"forward"``: forwards.

Each request's method, path and headers are recorded in ``seen``.
"""

from __future__ import annotations

import http.client
import time
from http.server import BaseHTTPRequestHandler
from typing import Dict, List, Optional, Tuple
from urllib.parse import urlsplit

from local_server import LocalServer

CUT_AFTER = 250


class FaultyProxy(LocalServer):
    """The proxy, listening on a free port of 127.0.0.1 (``url``); ``close()`` stops it."""

    def __init__(self, upstream: str, plan: Optional[List[str]] = None) -> None:
        parts = urlsplit(upstream)
        self.upstream: Tuple[str, int] = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.plan: List[str] = list(plan or [])
        super().__init__()

    def _next_fault(self) -> str:
        with self._lock:
            return self.plan.pop(0) if self.plan else "forward"

    def _answer(self, handler: BaseHTTPRequestHandler, headers: Dict[str, str], body: Optional[bytes]) -> None:
        fault = self._next_fault()
        if fault == "503":
            payload = b'{"title":"Service unavailable","error":"unavailable","status":503}'
            handler.send_response(503)
            handler.send_header("content-type", "application/problem+json")
            handler.send_header("retry-after-ms", "0")
            handler.send_header("content-length", str(len(payload)))
            handler.end_headers()
            handler.wfile.write(payload)
            return
        if fault == "hang":
            # Wait until the client gives up (its socket closes) or a minute passes.
            handler.connection.settimeout(60)
            try:
                handler.connection.recv(1)
            except OSError:
                pass
            return
        if fault == "slow":
            time.sleep(0.5)
        upstream = http.client.HTTPConnection(*self.upstream, timeout=60)
        try:
            forwarded = {k: v for k, v in headers.items() if k not in ("host", "connection", "content-length")}
            upstream.request(handler.command, handler.path, body=body, headers=forwarded)
            answer = upstream.getresponse()
            if fault == "drop":
                answer.read()
                return  # the work is done; the answer is lost
            handler.send_response(answer.status)
            for name, value in answer.getheaders():
                if name.lower() not in ("transfer-encoding", "content-length", "connection", "keep-alive"):
                    handler.send_header(name, value)
            handler.send_header("transfer-encoding", "chunked")
            handler.send_header("connection", "close")
            handler.end_headers()
            passed = 0
            while True:
                chunk = answer.read1(65536)
                if not chunk:
                    break
                if fault == "cut" and passed + len(chunk) >= CUT_AFTER:
                    part = chunk[: CUT_AFTER - passed]
                    # Announce the whole chunk, send part of it, and break the connection.
                    handler.wfile.write(b"%x\r\n" % len(chunk) + part)
                    handler.wfile.flush()
                    return
                passed += len(chunk)
                handler.wfile.write(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
                handler.wfile.flush()
            handler.wfile.write(b"0\r\n\r\n")
        except OSError:
            pass  # the client left (a closed stream)
        finally:
            upstream.close()
