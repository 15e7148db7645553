"""
The wire types, as TypedDicts: the bodies the client sends and the answers it gets back, as the
route table's schemas define them (docs/openapi.json; docs/run-api.md and docs/management-api.md
describe each field). Answers are the server's JSON as parsed: extra members the server adds
later are kept, and a key marked optional here may be absent.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

RunState = Literal["QUEUED", "PENDING", "CLAIMED", "INPROGRESS", "SUCCEEDED", "FAILED", "BLOCKED", "ERROR", "CANCELLED"]
"""A run's state (docs/state-machine.md)."""

RunMode = Literal["normal", "plan", "orchestrate"]
"""The published clients' run mode: accepted, not acted on."""


class McpServerConfig(TypedDict, total=False):
    """One MCP server of a run's config: exactly one of ``warp_id``, ``command`` (with ``args``, ``env``) or ``url`` (with ``headers``)."""

    warp_id: str
    command: str
    args: List[str]
    env: Dict[str, str]
    url: str
    headers: Dict[str, str]


class HarnessConfig(TypedDict, total=False):
    """Which agent program runs the run (``type`` such as ``oz``, ``claude``, ``gemini``, ``codex``)."""

    type: str
    auth_secret_name: str
    model_id: str
    reasoning_level: str


class AmbientAgentConfig(TypedDict, total=False):
    """A run's configuration (docs/run-api.md, "Start a run"); every field optional. Other accepted fields may be added as a plain dict."""

    name: str
    model_id: str
    base_prompt: str
    environment_id: str
    skill_spec: str
    mcp_servers: Dict[str, McpServerConfig]
    computer_use_enabled: bool
    idle_timeout_minutes: int
    worker_host: str
    harness: HarnessConfig
    skills: List[Any]


class AttachmentInput(TypedDict):
    """A file sent with a run: standard base64 ``data`` (e.g. ``base64.b64encode(raw).decode()``), at most 5 MiB decoded."""

    file_name: str
    mime_type: str
    data: str


class ImageInput(TypedDict):
    """An image sent with a run (stored as attachment ``image-<n>``)."""

    mime_type: str
    data: str


class RunAgentResponse(TypedDict):
    """The answer to a create: the new run's ID and state (``task_id`` is a deprecated alias of ``run_id``)."""

    run_id: str
    task_id: str
    state: RunState


class RunFollowupResponse(TypedDict):
    """The answer to a follow-up: the run and its state after it."""

    run_id: str
    state: RunState


class RequestUsage(TypedDict, total=False):
    """What a run cost, as its agent reported it (docs/run-api.md, "The run: RunItem"): credits, the same in US dollars, and the tokens an agent CLI counted."""

    compute_cost: float
    compute_cost_usd: float
    inference_cost: float
    inference_cost_usd: float
    platform_cost: float
    platform_cost_usd: float
    input_tokens: float
    output_tokens: float


class SessionRedirect(TypedDict, total=False):
    """The answer of ``runs.session_redirect``: ``conversation_id`` once the session's run has ended, nothing while it runs."""

    conversation_id: str


class ArtifactItem(TypedDict):
    """One of a run's ``artifacts`` (docs/artifacts.md): ``PLAN``, ``PULL_REQUEST``, ``SCREENSHOT`` or ``FILE``, its ``data`` by type."""

    artifact_type: Literal["PLAN", "PULL_REQUEST", "SCREENSHOT", "FILE"]
    created_at: str
    data: Dict[str, Any]


class _ArtifactRequired(TypedDict):
    artifact_type: Literal["PLAN", "PULL_REQUEST", "SCREENSHOT", "FILE"]
    artifact_uid: str
    created_at: str


class Artifact(_ArtifactRequired, total=False):
    """The answer of ``artifacts.get``: ``data`` with ``download_url`` and ``expires_at`` for stored bytes."""

    data: Dict[str, Any]


class _RunItemRequired(TypedDict):
    run_id: str
    task_id: str
    title: str
    state: RunState
    prompt: str
    created_at: str
    updated_at: str


class RunItem(_RunItemRequired, total=False):
    """One run (docs/run-api.md, "The run: RunItem"); optional members appear when set."""

    started_at: Optional[str]
    status_message: Dict[str, Any]
    source: str
    creator: Dict[str, Any]
    scope: Dict[str, Any]
    agent_config: Dict[str, Any]
    conversation_id: str
    attachments: List[Dict[str, Any]]
    session_id: str
    session_link: str
    parent_run_id: str
    agent_identity_uid: str
    agent_skill: Dict[str, Any]
    trigger: Dict[str, Any]
    request_usage: RequestUsage
    artifacts: List["ArtifactItem"]
    execution_location: Literal["LOCAL", "REMOTE"]


class _PageInfoRequired(TypedDict):
    has_next_page: bool


class PageInfo(_PageInfoRequired, total=False):
    """Where a keyset page ends: ``next_cursor`` is the next page's ``cursor`` (or ``after``)."""

    next_cursor: str


class ListRunsResponse(TypedDict):
    """One page of runs."""

    runs: List[RunItem]
    page_info: PageInfo


class RunEvent(TypedDict):
    """One event of a run's transcript (docs/run-api.md, "Run events"): ``type`` is ``state``, ``status``, ``followup``, ``output``, ``artifact``, ``tool_call``, ``tool_result`` or ``truncated``."""

    id: int
    at: str
    type: str
    data: Any


class ListRunEventsResponse(TypedDict):
    """One page of a run's events."""

    events: List[RunEvent]
    page_info: PageInfo


class _FactoryRequired(TypedDict):
    uid: str
    name: str
    created_at: str
    updated_at: str


class Factory(_FactoryRequired, total=False):
    """A factory (docs/management-api.md)."""

    foreman_agent_identity_uid: str


class FactoryList(TypedDict):
    """The team's factories."""

    factories: List[Factory]


class Secret(TypedDict):
    """A team secret, by name (its value is never answered)."""

    name: str
    created_at: str
    updated_at: str


class SecretList(TypedDict):
    """The team's secrets."""

    secrets: List[Secret]


class ApiKeyCreator(TypedDict, total=False):
    """Who created an API key (a copy of their identity)."""

    type: str
    uid: str
    display_name: str


class ApiKey(TypedDict):
    """An API key as listed (docs/management-api.md, "API keys"): never the key itself."""

    id: str
    name: str
    prefix: str
    scopes: Optional[List[str]]
    created_by: Optional[ApiKeyCreator]
    created_at: str
    last_used_at: Optional[str]
    expires_at: Optional[str]


class ApiKeyCreated(ApiKey):
    """A new API key: its view and the key, shown this once."""

    key: str


class ApiKeyList(TypedDict):
    """The team's API keys not revoked, newest first."""

    api_keys: List[ApiKey]


WebhookAuthMode = Literal["token", "url_token", "signature"]
"""How a webhook authenticates its deliveries (docs/webhooks.md)."""


class _WebhookRequired(TypedDict):
    uid: str
    name: str
    auth_mode: WebhookAuthMode
    secret_name: str
    enabled: bool
    ingress_url: str
    created_at: str
    updated_at: str


class Webhook(_WebhookRequired, total=False):
    """A webhook (docs/management-api.md); ``definition_file`` is set for one defined by a file (docs/definitions.md)."""

    signature_scheme: str
    delivery_id_header: str
    definition_file: str


class _WebhookWithSecretRequired(TypedDict):
    webhook: Webhook
    ingress_url: str


class WebhookWithSecret(_WebhookWithSecretRequired, total=False):
    """A created or rotated webhook, with its secret (shown in this answer only)."""

    secret: str


class WebhookList(TypedDict):
    """A factory's webhooks."""

    webhooks: List[Webhook]


class Delivery(TypedDict):
    """One entry of a webhook's delivery log."""

    delivery_id: str
    identity: Optional[str]
    size: int
    received_at: str
    status: str
    resent_from: Optional[str]


class DeliveryResent(TypedDict):
    """A resend's new log entry and the runs it started."""

    delivery: Delivery
    run_ids: List[str]


class DeliveryDetail(Delivery, total=False):
    """One log entry; an accepted one with its payload."""

    payload: Any


class DeliveryList(TypedDict):
    """One page of a webhook's delivery log, newest first."""

    deliveries: List[Delivery]
    page_info: PageInfo


class AuditActor(TypedDict):
    """Who made an audit event's change: a principal's type and uid, or ``webhook_sender`` and the webhook's UID."""

    type: str
    id: str


class AuditEvent(TypedDict):
    """One event of the audit log (docs/operations.md, "Audit"): never a secret, token, signature or payload."""

    id: str
    kind: str
    at: str
    actor: AuditActor
    target: AuditActor
    factory_uid: Optional[str]
    detail: Dict[str, Union[str, int, float, bool, None]]


class AuditList(TypedDict):
    """One page of the audit log, newest first."""

    events: List[AuditEvent]
    page_info: PageInfo


class Repository(TypedDict):
    """A repository the team's skills come from (docs/management-api.md, "Repositories")."""

    name: str
    url: str
    default_branch: str
    credential_secret: Optional[str]
    created_at: str


class RepositoryList(TypedDict):
    """The team's repositories, by name."""

    repositories: List[Repository]


class AgentSource(TypedDict):
    """Where a skill variant's SKILL.md is: repository owner and name, and the file's path."""

    owner: str
    name: str
    skill_path: str


class AgentEnvironment(TypedDict):
    """An environment a skill variant is available in (none yet)."""

    name: str
    uid: str


class _AgentVariantBase(TypedDict):
    """The members every variant has."""

    id: str
    base_prompt: str
    description: str
    environments: List[AgentEnvironment]
    source: AgentSource


class AgentVariant(_AgentVariantBase, total=False):
    """One SKILL.md of a skill name; ``error`` only for a malformed one (with ``include_malformed_skills``)."""

    last_run_timestamp: Optional[str]
    error: str


class AgentSkill(TypedDict):
    """One agent of ``GET /agent``: a skill name and its variants, as the published clients type it."""

    name: str
    variants: List[AgentVariant]


class AgentList(TypedDict):
    """``GET /agent``'s answer: one agent per skill name."""

    agents: List[AgentSkill]


HarnessType = Literal["claude", "codex", "gemini", "command"]
"""An agent CLI a server may run: the values of a run's ``config.harness.type`` besides ``oz`` (the default)."""


class _HarnessInfoRequired(TypedDict):
    type: HarnessType


class HarnessInfo(_HarnessInfoRequired, total=False):
    """One harness the server's executor runs: ``version`` as its CLI reported it, ``default`` on the one ``oz`` (or no type) runs."""

    version: str
    default: bool


class HarnessList(TypedDict):
    """``GET /agent/harnesses``'s answer: empty when the executor does not say what it runs."""

    harnesses: List[HarnessInfo]


class Trigger(TypedDict):
    """What starts an automation: e.g. ``{"provider": "webhook", "event": "received", "filter": {...}}`` (docs/filters.md)."""

    provider: str
    event: str
    filter: Dict[str, Any]


class _AutomationRequired(TypedDict):
    id: str
    name: str
    prompt: str
    enabled: bool
    triggers: List[Trigger]
    created_at: str
    updated_at: str


class Automation(_AutomationRequired, total=False):
    """An automation: a prompt run for deliveries its triggers select."""

    config: AmbientAgentConfig


class AutomationList(TypedDict):
    """A factory's automations."""

    automations: List[Automation]


class FilterCheck(TypedDict):
    """One check of a filter test."""

    passed: bool
    detail: str


class _TestFilterResultRequired(TypedDict):
    result: Literal["Would trigger", "Would not trigger"]
    webhook_check: FilterCheck
    payload_check: FilterCheck


class TestFilterResult(_TestFilterResultRequired, total=False):
    """Whether a payload would start the automation, and why not."""

    note: str


class _WebhookDefinitionRequired(TypedDict):
    name: str
    secret_name: str


class WebhookDefinition(_WebhookDefinitionRequired, total=False):
    """A webhook as a definition file declares it (docs/definitions.md)."""

    auth_mode: WebhookAuthMode
    signature_scheme: str
    delivery_id_header: str
    enabled: bool


class _TriggerDefinitionRequired(TypedDict):
    webhooks: List[str]


class TriggerDefinition(_TriggerDefinitionRequired, total=False):
    """A definition file's trigger: the webhooks it selects by file name, and an optional payload filter (docs/filters.md)."""

    payload: Any


class _AutomationDefinitionRequired(TypedDict):
    name: str
    prompt: str
    triggers: List[TriggerDefinition]


class AutomationDefinition(_AutomationDefinitionRequired, total=False):
    """An automation as a definition file declares it (docs/definitions.md)."""

    enabled: bool
    config: AmbientAgentConfig


class ApplyResult(TypedDict):
    """The plan of a definitions apply, and whether it was applied (docs/definitions.md)."""

    applied: bool
    dry_run: bool
    version: int
    webhooks: List[Dict[str, Any]]
    automations: List[Dict[str, Any]]


JsonBody = Union[Dict[str, Any], List[Any]]
"""Any JSON object or array, for ``Client.request()``."""
