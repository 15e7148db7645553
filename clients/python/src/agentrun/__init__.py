"""
agentrun: a Python client for the agentrun run API and management API (docs/python.md), on the
standard library only. Start with ``agentrun.Client(api_key=..., base_url=...)``; both default to
``AGENTRUN_API_KEY`` and ``AGENTRUN_BASE_URL``.
"""

from ._client import Client
from ._errors import (
    AgentRunError,
    APIConnectionError,
    APIConnectionTimeoutError,
    APIError,
    APIResponseError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    UnprocessableEntityError,
    WaitTimeoutError,
)
from ._omitted import OMITTED
from ._stream import RunStream
from ._version import __version__

__all__ = [
    "OMITTED",
    "APIConnectionError",
    "APIConnectionTimeoutError",
    "APIError",
    "APIResponseError",
    "AgentRunError",
    "AuthenticationError",
    "BadRequestError",
    "Client",
    "ConflictError",
    "InternalServerError",
    "NotFoundError",
    "PermissionDeniedError",
    "RateLimitError",
    "RunStream",
    "UnprocessableEntityError",
    "WaitTimeoutError",
    "__version__",
]
