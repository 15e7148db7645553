"""
When and how long to wait before trying a call again (docs/python.md, "Retries"), as the TS
client does (packages/client/src/retry.ts). The server may decide with ``x-should-retry``;
otherwise connection errors, 408, 409, 429 and 5xx are retried.
"""

from __future__ import annotations

import random
import time
from email.utils import parsedate_to_datetime
from typing import Callable, Mapping, Optional

INITIAL_DELAY = 0.5
MAX_DELAY = 8.0
# A server-given wait beyond this is not honoured as given (the backoff is used instead).
MAX_SERVER_DELAY = 60.0


def should_retry(status: int, headers: Mapping[str, str]) -> bool:
    """Whether an answer with this status and these (lower-cased) headers is worth another attempt."""
    verdict = headers.get("x-should-retry")
    if verdict == "true":
        return True
    if verdict == "false":
        return False
    return status in (408, 409, 429) or status >= 500


def retry_delay(
    retries_left: int,
    max_retries: int,
    headers: Optional[Mapping[str, str]],
    rand: Callable[[], float] = random.random,
) -> float:
    """
    Seconds to wait before retry number ``max_retries - retries_left``: the server's
    ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date) when given and between 0 and
    60 s, else 0.5 s, 1 s, 2 s … (at most 8 s) with up to a quarter taken off at random, so
    clients failing together do not retry together.
    """
    from_server = _server_delay(headers) if headers is not None else None
    if from_server is not None and 0 <= from_server <= MAX_SERVER_DELAY:
        return from_server
    attempt = max_retries - retries_left
    delay = min(INITIAL_DELAY * 2.0**attempt, MAX_DELAY)
    return delay * (1 - rand() * 0.25)


def _server_delay(headers: Mapping[str, str]) -> Optional[float]:
    ms = _number(headers.get("retry-after-ms"))
    if ms is not None:
        return ms / 1000
    after = headers.get("retry-after")
    if after is None or after.strip() == "":
        return None
    seconds = _number(after)
    if seconds is not None:
        return seconds
    try:
        when = parsedate_to_datetime(after)
    except (TypeError, ValueError, IndexError):
        return None
    return when.timestamp() - time.time()


def _number(text: Optional[str]) -> Optional[float]:
    if text is None or text.strip() == "":
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value == value and value not in (float("inf"), float("-inf")) else None
