"""
The client's errors: one class per status the API answers with, each carrying the problem+json
fields of the answer (docs/run-api.md, "Errors"; docs/python.md, "Errors"), plus the two for no
answer at all and the one for a wait that gave up.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Type


class AgentRunError(Exception):
    """Any failure of a call made by the client."""


class APIError(AgentRunError):
    """
    The API answered with a status that is not a success.

    Attributes: ``status``, ``headers`` (lower-cased names), ``body`` (the parsed problem+json, or
    its text when it was not JSON), and the problem's fields ``type``, ``title``, ``error`` (the
    stable code, e.g. ``idempotency_conflict``), ``detail``, ``request_id`` (else the answer's
    ``x-request-id``) and ``errors`` (every problem of a many-part request, e.g. a definitions apply).
    """

    status: int
    headers: Dict[str, str]
    body: Any
    type: Optional[str]
    title: Optional[str]
    error: Optional[str]
    detail: Optional[str]
    request_id: Optional[str]
    errors: Optional[List[Any]]

    def __init__(self, status: int, headers: Mapping[str, str], body: Any) -> None:
        problem: Mapping[str, Any] = body if isinstance(body, dict) else {}
        self.status = status
        self.headers = {name.lower(): value for name, value in headers.items()}
        self.body = body
        self.type = _text(problem.get("type"))
        self.title = _text(problem.get("title"))
        self.error = _text(problem.get("error"))
        self.detail = _text(problem.get("detail"))
        self.request_id = _text(problem.get("request_id")) or self.headers.get("x-request-id")
        errors = problem.get("errors")
        self.errors = errors if isinstance(errors, list) else None
        said = self.detail or self.error or self.title or (body if isinstance(body, str) and body else "status code")
        super().__init__(f"{status} {said}")


def _text(value: Any) -> Optional[str]:
    return value if isinstance(value, str) else None


class BadRequestError(APIError):
    """400: the request is malformed, names an unknown field, or asks for what cannot be done (e.g. cancel a finished run)."""


class AuthenticationError(APIError):
    """401: no API key, or an unknown one."""


class PermissionDeniedError(APIError):
    """403: the key's principal lacks a permission (e.g. ``manage_factory``)."""


class NotFoundError(APIError):
    """404: no such route, or no such resource in your team."""


class ConflictError(APIError):
    """409: e.g. an ``Idempotency-Key`` reused with another body, or a follow-up on a cancelled run."""


class UnprocessableEntityError(APIError):
    """422: the request is well-formed but cannot be processed."""


class RateLimitError(APIError):
    """429: too many requests; retried by the client after the answer's ``Retry-After``."""


class InternalServerError(APIError):
    """Any status of 500 or above (500 ``internal_error``, 503 ``unavailable``, …)."""


class APIResponseError(AgentRunError):
    """
    The API answered with a success status, but not with what the operation answers: a body that
    is not JSON, a page that is not one, a page cursor given before (paging on would never end), a
    stream's event that is not a run event. Never retried: the same server gives the same answer.
    """


class APIConnectionError(AgentRunError):
    """The request never got an answer (DNS, refused connection, reset, a dropped connection)."""

    def __init__(self, message: str = "Connection error.") -> None:
        super().__init__(message)


class APIConnectionTimeoutError(APIConnectionError):
    """No answer within the call's timeout."""

    def __init__(self, message: str = "Request timed out.") -> None:
        super().__init__(message)


class WaitTimeoutError(AgentRunError):
    """``runs.wait()`` gave up: the run was not finished within its ``timeout`` (seconds)."""

    run_id: str
    timeout: float
    last_state: Optional[str]
    """The run's state at the last look, if any look answered."""

    def __init__(self, run_id: str, timeout: float, last_state: Optional[str]) -> None:
        self.run_id = run_id
        self.timeout = timeout
        self.last_state = last_state
        seen = f" (last seen {last_state})" if last_state else ""
        super().__init__(f"run {run_id} did not finish within {timeout:g} s{seen}")


_BY_STATUS: Dict[int, Type[APIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def error_for_status(status: int, headers: Mapping[str, str], body: Any) -> APIError:
    """The error for an answer's status: its class, or ``APIError`` for a status without one."""
    error_class: Type[APIError] = APIError
    if status >= 500:
        error_class = InternalServerError
    elif status in _BY_STATUS:
        error_class = _BY_STATUS[status]
    return error_class(status, headers, body)
