"""
``client.runs.wait()``: poll a run until it is finished (docs/python.md, "Waiting for a run:
wait()"). The TS twin is packages/client/src/run-wait.ts.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Optional

from ._errors import APIConnectionError, InternalServerError, RateLimitError, WaitTimeoutError
from .types import TERMINAL_STATES, RunItem

if TYPE_CHECKING:
    from ._client import Client


def wait_for_run(client: Client, run_id: str, poll_interval: float = 1.0, timeout: Optional[float] = None) -> RunItem:
    """The run, once it is in a terminal state; ``WaitTimeoutError`` past ``timeout`` seconds (default: no limit)."""
    if isinstance(poll_interval, bool) or not isinstance(poll_interval, (int, float)) or not 0 <= poll_interval < float("inf"):
        raise ValueError(f"runs.wait: poll_interval must be a number of seconds >= 0, got {poll_interval!r}")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 <= timeout < float("inf")):
        raise ValueError(f"runs.wait: timeout must be a number of seconds >= 0, got {timeout!r}")
    deadline = None if timeout is None else time.monotonic() + timeout
    last_state: Optional[str] = None
    failures = 0
    while True:
        call_timeout: Optional[float] = None
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WaitTimeoutError(run_id, float(timeout or 0), last_state)
            # A look in flight is cut at the deadline too, so the wait never outlasts it by a request's time.
            call_timeout = min(client.timeout, remaining)
        try:
            # With a deadline, a failed look is retried by the polling itself (up to the client's
            # max_retries in a row), so that no retry's backoff outlasts the deadline.
            run = client.runs.get(run_id, timeout=call_timeout, max_retries=None if deadline is None else 0)
        except (APIConnectionError, InternalServerError, RateLimitError) as error:
            failures += 1
            if deadline is None:
                raise
            if time.monotonic() >= deadline:
                raise WaitTimeoutError(run_id, float(timeout or 0), last_state) from error
            if failures > client.max_retries:
                raise
            time.sleep(min(poll_interval, max(0.0, deadline - time.monotonic())))
            continue
        failures = 0
        last_state = run["state"]
        if last_state in TERMINAL_STATES:
            return run
        pause = poll_interval if deadline is None else min(poll_interval, max(0.0, deadline - time.monotonic()))
        time.sleep(pause)
