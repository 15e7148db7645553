"""
What the tests share (docs/python.md, "What the tests prove"): the package on the path (the tests
run from a checkout, uninstalled), the repository's root, and the reference server started as a
child process (``npm start``'s command) on the memory store or on PostgreSQL.
"""

from __future__ import annotations

import base64
import os
import secrets
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional

PACKAGE_ROOT = Path(__file__).resolve().parents[1]
REPO_ROOT = PACKAGE_ROOT.parents[1]
sys.path.insert(0, str(PACKAGE_ROOT / "src"))

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/test"
STARTUP_SECONDS = 90.0


def free_port() -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def find_postgres() -> Optional[str]:
    """
    The PostgreSQL server to test on: ``DATABASE_URL``, else the local one. ``None`` when none
    answers, outside CI only: with ``CI=true`` a missing server fails the suite.
    """
    url = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
    try:
        done = subprocess.run(["psql", url, "-tAc", "SELECT 1"], capture_output=True, text=True, timeout=10)
        problem = None if done.returncode == 0 else (done.stderr.strip() or f"psql exited {done.returncode}")
    except (OSError, subprocess.TimeoutExpired) as error:
        problem = str(error)
    if problem is None:
        return url
    if os.environ.get("CI") == "true":
        raise RuntimeError(f"CI=true and no PostgreSQL answers at {url}: {problem}")
    print(f"[python client tests] no PostgreSQL at {url} ({problem}); the Postgres half is skipped.", file=sys.stderr)
    return None


def psql(url: str, sql: str) -> str:
    """Run one statement with psql; its output."""
    done = subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-tAc", sql], capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        raise RuntimeError(f"psql failed: {done.stderr.strip()}")
    return done.stdout.strip()


class ReferenceServer:
    """
    The reference server (packages/server/src/main.ts) in a child process, on a free port, with
    its own API key; on PostgreSQL in a schema of its own, dropped by ``stop()``. Its demo agent
    works ``demo_duration_ms`` on a run (a prompt containing "fail" makes it fail). ``extra_env``
    sets more of its variables (``AGENTRUN_EXECUTOR=process`` and the harnesses, for instance).
    """

    def __init__(self, demo_duration_ms: int, database_url: Optional[str] = None, extra_env: Optional[Dict[str, str]] = None) -> None:
        self.api_key = "ar_py_" + secrets.token_hex(20)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.database_url = database_url
        self.schema = f"t_py_{os.getpid()}_{secrets.token_hex(4)}" if database_url else None
        self.output: List[str] = []
        env = dict(os.environ)
        env.pop("DATABASE_URL", None)
        env.update(
            PORT=str(self.port),
            HOST="127.0.0.1",
            AGENTRUN_API_KEY=self.api_key,
            AGENTRUN_DEMO_DURATION_MS=str(demo_duration_ms),
            AGENTRUN_POLL_INTERVAL_MS="25",
            AGENTRUN_SHUTDOWN_GRACE_MS="1",
            AGENTRUN_SECRET_KEY=base64.b64encode(secrets.token_bytes(32)).decode(),
            # The factory-source test registers a bare repository on this machine's disk.
            AGENTRUN_GIT_ALLOW_LOCAL_PATHS="1",
        )
        if database_url and self.schema:
            env.update(DATABASE_URL=database_url, AGENTRUN_DB_SCHEMA=self.schema)
        else:
            env.update(AGENTRUN_STORE="memory")
        env.update(extra_env or {})
        self._listening = threading.Event()
        self._process = subprocess.Popen(
            ["node", "--conditions=agentrun-source", "--import", "tsx", "packages/server/src/main.ts"],
            cwd=REPO_ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            self.output.append(line)
            if "listening" in line:
                self._listening.set()

    def wait_until_listening(self) -> None:
        """Block until the server says it listens; raise with its output if it exits or takes too long."""
        deadline = time.monotonic() + STARTUP_SECONDS
        while not self._listening.wait(0.1):
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the reference server did not start:\n" + "".join(self.output))

    def stop(self) -> None:
        """Stop the process, and drop its schema on PostgreSQL."""
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(10)
        if self._process.stdout is not None:
            self._process.stdout.close()
        if self.database_url and self.schema:
            psql(self.database_url, f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')


def start_servers(*demo_durations_ms: int, database_url: Optional[str] = None) -> List[ReferenceServer]:
    """Start several servers at once (each on its own store), and wait for all of them."""
    servers = [ReferenceServer(ms, database_url) for ms in demo_durations_ms]
    try:
        for server in servers:
            server.wait_until_listening()
    except BaseException:
        for server in servers:
            server.stop()
        raise
    return servers
