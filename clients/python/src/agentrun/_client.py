"""
The agentrun client (docs/python.md): ``Client.request()`` calls any operation of the route table
with retries, timeouts, idempotency keys and the error classes; the resources (``runs``,
``factories``, ``secrets``, ``api_keys``, ``webhooks``, ``automations``, ``deliveries``, ``audit``, ``repositories``, ``agents``, ``agent_identities``, ``environments``, ``sources``, ``schedules``, ``callbacks``) are thin methods over it.
The TypeScript twin is packages/client/src/client.ts.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from datetime import date, datetime
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

from ._errors import APIResponseError, error_for_status
from ._http import Answer, OpenAnswer, Origin, attempt
from ._omitted import OMITTED
from ._operations import OPERATIONS
from ._retry import retry_delay, should_retry
from ._version import __version__
from .resources.agent_identities import AgentIdentities
from .resources.api_keys import ApiKeys
from .resources.artifacts import Artifacts
from .resources.callbacks import Callbacks
from .resources.environments import Environments
from .resources.schedules import Schedules
from .resources.audit import Audit
from .resources.automations import Automations
from .resources.deliveries import Deliveries
from .resources.factories import Factories
from .resources.agents import Agents
from .resources.repositories import Repositories
from .resources.sources import Sources
from .resources.runs import Runs
from .resources.secrets import Secrets
from .resources.webhooks import Webhooks
from .resources.stats import Stats
from .resources.workers import Workers

DEFAULT_MAX_RETRIES = 2
DEFAULT_TIMEOUT = 60.0

QueryValue = Union[str, int, float, bool, datetime, date, None, List[Any], Mapping[str, Any]]
"""A query parameter's value: lists repeat the name; a mapping ``m`` of ``metadata`` is sent as ``metadata[key]=value``."""


class Client:
    """
    A client of one agentrun server.

    ``api_key`` and ``base_url`` default to the environment's ``AGENTRUN_API_KEY`` and
    ``AGENTRUN_BASE_URL``. ``base_url`` is where agentrun is mounted (e.g.
    ``https://agents.example.com``; the client adds ``/api/v1/…``); one that ends in ``/api/v1``,
    as the ``oz-agent-sdk`` clients take it, is taken back to the mount. ``max_retries`` (default 2) is
    the retries after a first attempt; ``timeout`` (seconds, default 60) bounds connecting and each
    wait for the answer. Every method also takes ``timeout=`` and ``max_retries=`` for one call.
    """

    base_url: str
    max_retries: int
    timeout: float
    runs: Runs
    factories: Factories
    secrets: Secrets
    api_keys: ApiKeys
    environments: Environments
    agent_identities: AgentIdentities
    callbacks: Callbacks
    sources: Sources
    schedules: Schedules
    audit: Audit
    repositories: Repositories
    agents: Agents
    webhooks: Webhooks
    automations: Automations
    deliveries: Deliveries

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        *,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        key = api_key if api_key is not None else os.environ.get("AGENTRUN_API_KEY")
        if not key:
            raise ValueError("agentrun.Client: api_key is required (or set AGENTRUN_API_KEY)")
        url = base_url if base_url is not None else os.environ.get("AGENTRUN_BASE_URL")
        if not url:
            raise ValueError("agentrun.Client: base_url is required (or set AGENTRUN_BASE_URL)")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"agentrun.Client: max_retries must be a whole number >= 0, got {max_retries!r}")
        _check_timeout("agentrun.Client", timeout)
        self._api_key = key
        self.base_url = _mount_url(url)
        self._origin = _origin(self.base_url)
        self.max_retries = max_retries
        self.timeout = float(timeout)
        self.runs = Runs(self)
        self.artifacts = Artifacts(self)
        self.factories = Factories(self)
        self.secrets = Secrets(self)
        self.api_keys = ApiKeys(self)
        self.audit = Audit(self)
        self.repositories = Repositories(self)
        self.agents = Agents(self)
        self.webhooks = Webhooks(self)
        self.automations = Automations(self)
        self.deliveries = Deliveries(self)
        self.environments = Environments(self)
        self.agent_identities = AgentIdentities(self)
        self.sources = Sources(self)
        self.schedules = Schedules(self)
        self.callbacks = Callbacks(self)
        self.workers = Workers(self)
        self.stats = Stats(self)

    def __repr__(self) -> str:
        return f"agentrun.Client(base_url={self.base_url!r})"

    def request(
        self,
        operation_id: str,
        *,
        params: Optional[Mapping[str, str]] = None,
        query: Optional[Mapping[str, QueryValue]] = None,
        body: Any = OMITTED,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        idempotency_key: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """
        Call one operation of the route table by its operation ID (e.g. ``"getRun"``), with its
        path ``params``, ``query`` and JSON ``body``; answers the parsed JSON, the text, the bytes
        or ``None``, as the operation's answer is. Errors are the classes of agentrun's errors module.
        """
        operation = _operation(operation_id)
        answer = self._send(operation_id, params, query, body, timeout, max_retries, idempotency_key, headers, keep_open=False)
        assert isinstance(answer, Answer)
        if operation.content == "none":
            return None
        if operation.content == "binary":
            return answer.body
        text = answer.body.decode("utf-8", errors="replace")
        if operation.content == "text":
            return text
        try:
            return json.loads(text)
        except ValueError:
            raise APIResponseError(f"{operation_id}: the answer is not JSON: {text[:200]!r}") from None

    def open(
        self,
        operation_id: str,
        *,
        params: Optional[Mapping[str, str]] = None,
        query: Optional[Mapping[str, QueryValue]] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> OpenAnswer:
        """
        Call a GET operation and answer its successful answer unread, for a body read as it
        comes (the run events' Server-Sent Events); retries and error classes as for ``request()``.
        ``timeout`` also bounds each wait for more of the body. Close it when done.
        """
        answer = self._send(operation_id, params, query, OMITTED, timeout, max_retries, None, headers, keep_open=True)
        assert isinstance(answer, OpenAnswer)
        return answer

    def _send(
        self,
        operation_id: str,
        params: Optional[Mapping[str, str]],
        query: Optional[Mapping[str, QueryValue]],
        body: Any,
        timeout: Optional[float],
        max_retries: Optional[int],
        idempotency_key: Optional[str],
        extra_headers: Optional[Mapping[str, str]],
        keep_open: bool,
    ) -> Union[Answer, OpenAnswer]:
        operation = _operation(operation_id)
        target = self._origin.prefix + _fill_path(operation.path, params) + _query_string(query)
        headers = {"accept": "application/json", "user-agent": f"agentrun-python/{__version__}"}
        for name, value in (extra_headers or {}).items():
            if name.lower() != "authorization":
                headers[name.lower()] = value
        headers["authorization"] = f"Bearer {self._api_key}"
        data: Optional[bytes] = None
        if body is not OMITTED:
            data = _json_body(operation_id, body)
            headers["content-type"] = "application/json"
        if operation.method == "POST":
            headers["idempotency-key"] = idempotency_key if idempotency_key is not None else str(uuid.uuid4())
        attempt_timeout = self.timeout if timeout is None else _check_timeout(operation_id, timeout)
        retries = self.max_retries if max_retries is None else max_retries
        return self._with_retries(operation.method, target, data, headers, attempt_timeout, retries, keep_open)

    def _with_retries(
        self,
        method: str,
        target: str,
        data: Optional[bytes],
        headers: Dict[str, str],
        timeout: float,
        max_retries: int,
        keep_open: bool,
    ) -> Union[Answer, OpenAnswer]:
        retries_left = max_retries
        while True:
            outcome = attempt(self._origin, method, target, data, headers, timeout, keep_open)
            if isinstance(outcome, OpenAnswer):
                return outcome
            if isinstance(outcome, Answer):
                if 200 <= outcome.status < 300:
                    return outcome
                if retries_left > 0 and should_retry(outcome.status, outcome.headers):
                    time.sleep(retry_delay(retries_left, max_retries, outcome.headers))
                    retries_left -= 1
                    continue
                raise error_for_status(outcome.status, outcome.headers, _error_body(outcome.body))
            if retries_left <= 0:
                raise outcome
            time.sleep(retry_delay(retries_left, max_retries, None))
            retries_left -= 1


def _operation(operation_id: str) -> Any:
    operation = OPERATIONS.get(operation_id)
    if operation is None:
        raise ValueError(f"unknown operation {operation_id!r}; known: {', '.join(sorted(OPERATIONS))}")
    return operation


def _check_timeout(where: str, timeout: Any) -> float:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0 or timeout == float("inf"):
        raise ValueError(f"{where}: timeout must be a number of seconds > 0, got {timeout!r}")
    return float(timeout)


_API_PREFIX = "/api/v1"


def _mount_url(base_url: str) -> str:
    """
    Where agentrun is mounted: ``base_url`` without trailing slashes and without a final
    ``/api/v1`` in its path, which the published clients' base URLs end in (docs/python.md,
    "Construct"), so that the operations' ``/api/v1/…`` paths are not doubled.
    """
    parts = urlsplit(base_url.rstrip("/"))
    path = parts.path.rstrip("/")
    if path.endswith(_API_PREFIX):
        path = path[: -len(_API_PREFIX)]
    return urlunsplit(parts._replace(path=path))


def _origin(base_url: str) -> Origin:
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"agentrun.Client: base_url must be an http(s) URL such as https://agents.example.com, got {base_url!r}")
    if parts.query or parts.fragment:
        raise ValueError(f"agentrun.Client: base_url must have no query or fragment, got {base_url!r}")
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"agentrun.Client: base_url has an invalid port: {base_url!r}") from None
    host = parts.hostname
    return Origin(parts.scheme, host, port, parts.path.rstrip("/"))


def _fill_path(template: str, params: Optional[Mapping[str, str]]) -> str:
    out = ""
    rest = template
    while "{" in rest:
        before, _, after = rest.partition("{")
        name, _, rest = after.partition("}")
        value = (params or {}).get(name)
        if not isinstance(value, str) or value == "":
            raise ValueError(f"path param {name} is required (a non-empty string), got {value!r}")
        out += before + quote(value, safe="")
    return out + rest


def _query_string(query: Optional[Mapping[str, QueryValue]]) -> str:
    """Query values as the server reads them: each list item its own ``name=value``, booleans as ``true``/``false``."""
    if not query:
        return ""
    pairs: List[Tuple[str, str]] = []
    for name, value in query.items():
        if value is None:
            continue
        if isinstance(value, Mapping):
            pairs.extend((f"{name}[{key}]", _query_text(name, item)) for key, item in value.items())
            continue
        for item in value if isinstance(value, (list, tuple)) else [value]:
            pairs.append((name, _query_text(name, item)))
    text = urlencode(pairs)
    return f"?{text}" if text else ""


def _query_text(name: str, value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (str, int, float)):
        return str(value)
    raise ValueError(f"query parameter {name}: {value!r} is not a string, number, boolean or datetime")


def _json_body(operation_id: str, body: Any) -> bytes:
    try:
        return json.dumps(body, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
    except (TypeError, ValueError) as error:
        raise ValueError(f"{operation_id}: the body cannot be sent as JSON: {error}") from None


def _error_body(data: bytes) -> Any:
    text = data.decode("utf-8", errors="replace")
    try:
        return json.loads(text)
    except ValueError:
        return text
