import { TERMINAL_STATES } from '@agentrun/core/api';

/**
 * The Python client's names for the wire's shapes (clients/python/src/agentrun/types.py): what a
 * user imports and what the docstrings say. The shapes themselves come from docs/openapi.json; a
 * shape named nowhere here is named after where it is (`ListSchedulesResponse`, `ScheduleHistory`).
 *
 * `at` is a place in the document: an operation and `body` or an answer's status, or a schema of
 * `components.schemas`, then a step per word: a member's name, `[]` a list's items, `{}` a map's
 * values, `|n` the n-th form of a union. A `$ref` or a `null` beside one form is stepped through.
 */
export interface PythonName {
  name: string;
  at: string;
  doc?: string;
  /** For a set of values (a `Literal`): a tuple of them too, under this name. */
  values?: { name: string; doc: string };
  /** For a set of values: frozensets of some of them, which the document does not say (core does). */
  subsets?: { name: string; doc: string; members: readonly string[] }[];
}

export const PYTHON_NAMES: readonly PythonName[] = [
  // Runs (docs/run-api.md)
  {
    name: 'RunState',
    at: 'RunItem state',
    doc: "A run's state (docs/state-machine.md).",
    values: { name: 'RUN_STATES', doc: 'Every state a run can be in, in the order the API lists them.' },
    subsets: [
      {
        name: 'TERMINAL_STATES',
        doc: "The states a run never leaves by itself (core's state machine, docs/state-machine.md); SUCCEEDED and FAILED still take a follow-up, which queues the run again.",
        members: [...TERMINAL_STATES],
      },
    ],
  },
  {
    name: 'RunSourceType',
    at: 'RunItem source',
    doc: 'Who or what created a run; ``WEBHOOK`` marks the runs the webhook ingress started.',
  },
  { name: 'RunMode', at: 'runAgent body mode', doc: "The published clients' run mode: accepted, not acted on." },
  {
    name: 'McpServerConfig',
    at: 'AmbientAgentConfig mcp_servers {}',
    doc: "One MCP server of a run's config: exactly one of ``warp_id``, ``command`` (with ``args``, ``env``) or ``url`` (with ``headers``).",
  },
  {
    name: 'HarnessConfig',
    at: 'AmbientAgentConfig harness',
    doc: 'Which agent program runs the run (``type`` such as ``oz``, ``claude``, ``gemini``, ``codex``).',
  },
  {
    name: 'AmbientAgentConfig',
    at: 'AmbientAgentConfig',
    doc: 'A run\'s configuration (docs/run-api.md, "Start a run"); every field optional.',
  },
  {
    name: 'AttachmentInput',
    at: 'runAgent body attachments []',
    doc: 'A file sent with a run: standard base64 ``data`` (e.g. ``base64.b64encode(raw).decode()``), at most 5 MiB decoded.',
  },
  { name: 'ImageInput', at: 'runAgent body images []', doc: 'An image sent with a run (stored as attachment ``image-<n>``).' },
  { name: 'RunAgentRequest', at: 'runAgent body', doc: 'The body of ``runs.create`` (docs/run-api.md, "Start a run").' },
  {
    name: 'RunAgentResponse',
    at: 'runAgent 200',
    doc: "The answer to a create: the new run's ID and state (``task_id`` is a deprecated alias of ``run_id``).",
  },
  { name: 'RunFollowupResponse', at: 'followupRun 200', doc: 'The answer to a follow-up: the run and its state after it.' },
  {
    name: 'RequestUsage',
    at: 'RunItem request_usage',
    doc: 'What a run cost, as its agent reported it (docs/run-api.md, "The run: RunItem"): credits, the same in US dollars, and the tokens an agent CLI counted.',
  },
  {
    name: 'SessionRedirect',
    at: 'checkSessionRedirect 200',
    doc: "The answer of ``runs.session_redirect``: ``conversation_id`` once the session's run has ended, nothing while it runs.",
  },
  {
    name: 'ArtifactItem',
    at: 'RunItem artifacts []',
    doc: "One of a run's ``artifacts`` (docs/artifacts.md): ``PLAN``, ``PULL_REQUEST``, ``SCREENSHOT`` or ``FILE``, its ``data`` by type.",
  },
  {
    name: 'Artifact',
    at: 'getArtifact 200',
    doc: 'The answer of ``artifacts.get``: ``data`` with ``download_url`` and ``expires_at`` for stored bytes.',
  },
  { name: 'RunItem', at: 'RunItem', doc: 'One run (docs/run-api.md, "The run: RunItem"); optional members appear when set.' },
  {
    name: 'PageInfo',
    at: 'listRuns 200 page_info',
    doc: "Where a keyset page ends: ``next_cursor`` is the next page's ``cursor`` (or ``after``).",
  },
  { name: 'ListRunsResponse', at: 'listRuns 200', doc: 'One page of runs.' },
  {
    name: 'RunEvent',
    at: 'listRunEvents 200 events []',
    doc: 'One event of a run\'s transcript (docs/run-api.md, "Run events"), ``data`` by its ``type``.',
  },
  { name: 'ListRunEventsResponse', at: 'listRunEvents 200', doc: "One page of a run's events." },
  // Factories, secrets, keys (docs/management-api.md)
  { name: 'Factory', at: 'getFactory 200', doc: 'A factory (docs/management-api.md).' },
  { name: 'FactoryList', at: 'listFactories 200', doc: "The team's factories." },
  { name: 'Secret', at: 'putSecret 200', doc: 'A team secret, by name (its value is never answered).' },
  { name: 'SecretList', at: 'listSecrets 200', doc: "The team's secrets." },
  { name: 'ApiKeyCreator', at: 'listApiKeys 200 api_keys [] created_by', doc: 'Who created an API key (a copy of their identity).' },
  {
    name: 'ApiKey',
    at: 'listApiKeys 200 api_keys []',
    doc: 'An API key as listed (docs/management-api.md, "API keys"): never the key itself.',
  },
  { name: 'ApiKeyCreated', at: 'createApiKey 201', doc: 'A new API key: its view and the key, shown this once.' },
  { name: 'ApiKeyList', at: 'listApiKeys 200', doc: "The team's API keys not revoked, newest first." },
  // Webhooks, deliveries, automations
  { name: 'WebhookAuthMode', at: 'getWebhook 200 auth_mode', doc: 'How a webhook authenticates its deliveries (docs/webhooks.md).' },
  {
    name: 'Webhook',
    at: 'getWebhook 200',
    doc: 'A webhook (docs/management-api.md); ``definition_file`` is set for one defined by a file (docs/definitions.md).',
  },
  { name: 'WebhookWithSecret', at: 'createWebhook 201', doc: 'A created or rotated webhook, with its secret (shown in this answer only).' },
  { name: 'WebhookList', at: 'listWebhooks 200', doc: "A factory's webhooks." },
  { name: 'Delivery', at: 'listDeliveries 200 deliveries []', doc: "One entry of a webhook's delivery log." },
  { name: 'DeliveryDetail', at: 'getDelivery 200', doc: 'One log entry; an accepted one with its payload.' },
  { name: 'DeliveryResent', at: 'resendDelivery 201', doc: "A resend's new log entry and the runs it started." },
  { name: 'DeliveryList', at: 'listDeliveries 200', doc: "One page of a webhook's delivery log, newest first." },
  {
    name: 'Trigger',
    at: 'getAutomation 200 triggers []',
    doc: 'What starts an automation: e.g. ``{"provider": "webhook", "event": "received", "filter": {"webhook_ids": [...]}}`` (docs/filters.md).',
  },
  { name: 'Automation', at: 'getAutomation 200', doc: 'An automation: a prompt run for deliveries its triggers select.' },
  { name: 'AutomationList', at: 'listAutomations 200', doc: "A factory's automations." },
  {
    name: 'TestFilterPayload',
    at: 'testFilter body |0',
    doc: 'A filter test of a payload, as if the webhook had received it.',
  },
  { name: 'TestFilterDelivery', at: 'testFilter body |1', doc: 'A filter test of a delivery the webhook received, by its ID.' },
  { name: 'TestFilterRequest', at: 'testFilter body', doc: 'The body of ``automations.test_filter``: a payload or a stored delivery.' },
  { name: 'FilterCheck', at: 'testFilter 200 webhook_check', doc: 'One check of a filter test.' },
  { name: 'TestFilterResult', at: 'testFilter 200', doc: 'Whether a payload would start the automation, and why not.' },
  // Definition files (docs/definitions.md)
  {
    name: 'WebhookDefinition',
    at: 'applyDefinitions body webhooks []',
    doc: 'A webhook as a definition file declares it (docs/definitions.md).',
  },
  {
    name: 'TriggerDefinition',
    at: 'applyDefinitions body automations [] triggers [] |0',
    doc: "A definition file's trigger: the webhooks it selects by file name, and an optional payload filter (docs/filters.md).",
  },
  {
    name: 'AutomationDefinition',
    at: 'applyDefinitions body automations []',
    doc: 'An automation as a definition file declares it (docs/definitions.md).',
  },
  {
    name: 'PlannedWebhook',
    at: 'applyDefinitions 200 webhooks []',
    doc: "A webhook of an apply's plan: what the apply does to it, which fields change, and its ingress URL.",
  },
  {
    name: 'PlannedChange',
    at: 'applyDefinitions 200 automations []',
    doc: "An automation, environment or schedule of an apply's plan: what the apply does to it and which fields change.",
  },
  {
    name: 'ApplyResult',
    at: 'applyDefinitions 200',
    doc: 'The plan of a definitions apply, and whether it was applied (docs/definitions.md).',
  },
  // The audit log (docs/operations.md, "Audit")
  {
    name: 'AuditEventKind',
    at: 'listAuditEvents 200 events [] kind',
    doc: 'What an audit event records (docs/operations.md, "Audit").',
    values: { name: 'AUDIT_EVENT_KINDS', doc: 'Every kind of audit event, as ``audit.list(kind=...)`` takes them.' },
  },
  {
    name: 'AuditActor',
    at: 'listAuditEvents 200 events [] actor',
    doc: "Who made an audit event's change: a principal's type and uid, or ``webhook_sender`` and the webhook's UID.",
  },
  {
    name: 'AuditEvent',
    at: 'listAuditEvents 200 events []',
    doc: 'One event of the audit log (docs/operations.md, "Audit"): never a secret, token, signature or payload.',
  },
  { name: 'AuditList', at: 'listAuditEvents 200', doc: 'One page of the audit log, newest first.' },
  // Repositories, skills, harnesses
  {
    name: 'Repository',
    at: 'getRepository 200',
    doc: 'A repository the team\'s skills come from (docs/management-api.md, "Repositories").',
  },
  { name: 'RepositoryList', at: 'listRepositories 200', doc: "The team's repositories, by name." },
  {
    name: 'AgentSource',
    at: 'listAgents 200 agents [] variants [] source',
    doc: "Where a skill variant's SKILL.md is: repository owner and name, and the file's path.",
  },
  {
    name: 'AgentEnvironment',
    at: 'listAgents 200 agents [] variants [] environments []',
    doc: 'An environment a skill variant is available in.',
  },
  {
    name: 'AgentVariant',
    at: 'listAgents 200 agents [] variants []',
    doc: 'One SKILL.md of a skill name; ``error`` only for a malformed one (with ``include_malformed_skills``).',
  },
  {
    name: 'AgentSkill',
    at: 'listAgents 200 agents []',
    doc: 'One agent of ``GET /agent``: a skill name and its variants, as the published clients type it.',
  },
  { name: 'AgentList', at: 'listAgents 200', doc: "``GET /agent``'s answer: one agent per skill name." },
  {
    name: 'HarnessType',
    at: 'listHarnesses 200 harnesses [] type',
    doc: "An agent CLI a server may run: the values of a run's ``config.harness.type`` besides ``oz`` (the default).",
    values: { name: 'HARNESS_TYPES', doc: "Every harness a run's ``config.harness.type`` may name besides ``oz``." },
  },
  {
    name: 'HarnessInfo',
    at: 'listHarnesses 200 harnesses []',
    doc: "One harness the server's executor runs: ``version`` as its CLI reported it, ``default`` on the one ``oz`` (or no type) runs.",
  },
  {
    name: 'HarnessList',
    at: 'listHarnesses 200',
    doc: "``GET /agent/harnesses``'s answer: empty when the executor does not say what it runs.",
  },
  // Environments, agent identities, sources, schedules, callbacks
  { name: 'Environment', at: 'getEnvironment 200', doc: 'An environment (docs/repositories.md, "Environments").' },
  { name: 'EnvironmentList', at: 'listEnvironments 200', doc: "The team's environments." },
  {
    name: 'AgentIdentity',
    at: 'updateAgentIdentity 200',
    doc: 'An agent identity: a named record of the team that runs may name by ``agent_identity_uid``.',
  },
  { name: 'AgentIdentityList', at: 'listAgentIdentities 200', doc: "The team's agent identities." },
  {
    name: 'SourceApply',
    at: 'listFactorySourceApplies 200 applies []',
    doc: "One apply of a factory's source: the commit, what started it, its outcome.",
  },
  { name: 'FactorySource', at: 'getFactorySource 200', doc: 'A factory\'s source (docs/repositories.md, "Factories from a repository").' },
  { name: 'SourceApplyList', at: 'listFactorySourceApplies 200', doc: "One page of a factory source's applies, newest first." },
  { name: 'SourceSync', at: 'syncFactorySource 200', doc: 'What a sync of a factory source found and did.' },
  { name: 'Schedule', at: 'getSchedule 200', doc: 'A schedule (docs/schedules.md).' },
  { name: 'ScheduleList', at: 'listSchedules 200', doc: "The team's schedules." },
  { name: 'Callback', at: 'getCallback 200', doc: 'A callback endpoint (docs/callbacks.md).' },
  {
    name: 'CallbackWithSecret',
    at: 'createCallback 201',
    doc: 'A created or rotated callback endpoint, with its signing secret (shown in this answer only).',
  },
  { name: 'CallbackList', at: 'listCallbacks 200', doc: "The team's callback endpoints." },
  { name: 'CallbackDelivery', at: 'resendCallbackDelivery 202', doc: 'One delivery of a callback endpoint, with its attempts.' },
  { name: 'CallbackDeliveryList', at: 'listCallbackDeliveries 200', doc: "One page of a callback endpoint's deliveries, newest first." },
  // The published clients' routes (docs/run-api.md)
  { name: 'CloudEnvironment', at: 'listCloudEnvironments 200 environments []', doc: 'An environment as the published clients list them.' },
  { name: 'ClientFactory', at: 'listClientFactories 200 factories []', doc: "A factory as the published clients' ``Factory`` has it." },
  {
    name: 'InboxItem',
    at: 'listInbox 200 items []',
    doc: 'One notification of the factory inbox: a run of a factory that is blocked or failed.',
  },
];
