"""
The operations the client calls, as the route table declares them
(packages/core/src/routes/table.ts; docs/architecture.md, "The route table"): method, full path
and how the answer's body is read. tests/test_operations.py compares this table with
docs/openapi.json, so a route the server gains without a line here fails the suite.
"""

from __future__ import annotations

from typing import Dict, Literal, NamedTuple

Content = Literal["json", "text", "binary", "none"]
"""How an answer's body is read: parsed JSON, text, bytes, or nothing (204)."""


class Operation(NamedTuple):
    """One operation of the route table: its HTTP method, its full path template, its answer's content."""

    method: str
    path: str
    content: Content


# All but the webhook ingress (called by providers) and the OpenAPI document, as in the TS client.
OPERATIONS: Dict[str, Operation] = {
    "runAgent": Operation("POST", "/api/v1/agent/run", "json"),
    "createRun": Operation("POST", "/api/v1/agent/runs", "json"),
    "listRuns": Operation("GET", "/api/v1/agent/runs", "json"),
    "getRun": Operation("GET", "/api/v1/agent/runs/{runId}", "json"),
    "followupRun": Operation("POST", "/api/v1/agent/runs/{runId}/followups", "json"),
    "cancelRun": Operation("POST", "/api/v1/agent/runs/{runId}/cancel", "text"),
    "getRunAttachment": Operation("GET", "/api/v1/agent/runs/{runId}/attachments/{fileName}", "binary"),
    "listRunEvents": Operation("GET", "/api/v1/agent/runs/{runId}/events", "json"),
    "getRunTranscript": Operation("GET", "/api/v1/agent/runs/{runId}/transcript", "text"),
    "checkSessionRedirect": Operation("GET", "/api/v1/agent/sessions/{sessionUuid}/redirect", "json"),
    "getArtifact": Operation("GET", "/api/v1/agent/artifacts/{artifactUid}", "json"),
    "downloadArtifact": Operation("GET", "/api/v1/artifacts/{artifactUid}/download", "binary"),
    "createFactory": Operation("POST", "/api/v1/factories", "json"),
    "listFactories": Operation("GET", "/api/v1/factories", "json"),
    "getFactory": Operation("GET", "/api/v1/factories/{factoryUid}", "json"),
    "applyDefinitions": Operation("POST", "/api/v1/factories/{factoryUid}/apply", "json"),
    "listSecrets": Operation("GET", "/api/v1/team/secrets", "json"),
    "putSecret": Operation("PUT", "/api/v1/team/secrets/{name}", "json"),
    "deleteSecret": Operation("DELETE", "/api/v1/team/secrets/{name}", "none"),
    "createWebhook": Operation("POST", "/api/v1/factories/{factoryUid}/webhooks", "json"),
    "listWebhooks": Operation("GET", "/api/v1/factories/{factoryUid}/webhooks", "json"),
    "getWebhook": Operation("GET", "/api/v1/factories/{factoryUid}/webhooks/{webhookUid}", "json"),
    "patchWebhook": Operation("PATCH", "/api/v1/factories/{factoryUid}/webhooks/{webhookUid}", "json"),
    "deleteWebhook": Operation("DELETE", "/api/v1/factories/{factoryUid}/webhooks/{webhookUid}", "none"),
    "rotateWebhookSecret": Operation("POST", "/api/v1/factories/{factoryUid}/webhooks/{webhookUid}/rotate-secret", "json"),
    "putProviderSecret": Operation("PUT", "/api/v1/factories/{factoryUid}/webhooks/{webhookUid}/provider-secret", "json"),
    "listDeliveries": Operation("GET", "/api/v1/factories/{factoryUid}/webhooks/{webhookUid}/deliveries", "json"),
    "getDelivery": Operation("GET", "/api/v1/factories/{factoryUid}/webhooks/{webhookUid}/deliveries/{deliveryId}", "json"),
    "getDeliveryPayload": Operation(
        "GET", "/api/v1/factories/{factoryUid}/webhooks/{webhookUid}/deliveries/{deliveryId}/payload", "binary"
    ),
    "resendDelivery": Operation("POST", "/api/v1/factories/{factoryUid}/webhooks/{webhookUid}/deliveries/{deliveryId}/resend", "json"),
    "createAutomation": Operation("POST", "/api/v1/factories/{factoryUid}/automations", "json"),
    "listAutomations": Operation("GET", "/api/v1/factories/{factoryUid}/automations", "json"),
    "getAutomation": Operation("GET", "/api/v1/factories/{factoryUid}/automations/{automationId}", "json"),
    "patchAutomation": Operation("PATCH", "/api/v1/factories/{factoryUid}/automations/{automationId}", "json"),
    "deleteAutomation": Operation("DELETE", "/api/v1/factories/{factoryUid}/automations/{automationId}", "none"),
    "testFilter": Operation("POST", "/api/v1/factories/{factoryUid}/automations/{automationId}/test-filter", "json"),
    "listAuditEvents": Operation("GET", "/api/v1/audit/events", "json"),
    "createEnvironment": Operation("POST", "/api/v1/environments", "json"),
    "listEnvironments": Operation("GET", "/api/v1/environments", "json"),
    "getEnvironment": Operation("GET", "/api/v1/environments/{environmentId}", "json"),
    "replaceEnvironment": Operation("PUT", "/api/v1/environments/{environmentId}", "json"),
    "deleteEnvironment": Operation("DELETE", "/api/v1/environments/{environmentId}", "none"),
    "createAgentIdentity": Operation("POST", "/api/v1/agent/identities", "json"),
    "listAgentIdentities": Operation("GET", "/api/v1/agent/identities", "json"),
    "updateAgentIdentity": Operation("PUT", "/api/v1/agent/identities/{identityUid}", "json"),
    "deleteAgentIdentity": Operation("DELETE", "/api/v1/agent/identities/{identityUid}", "none"),
    "createSchedule": Operation("POST", "/api/v1/agent/schedules", "json"),
    "listSchedules": Operation("GET", "/api/v1/agent/schedules", "json"),
    "getSchedule": Operation("GET", "/api/v1/agent/schedules/{scheduleId}", "json"),
    "updateSchedule": Operation("PUT", "/api/v1/agent/schedules/{scheduleId}", "json"),
    "deleteSchedule": Operation("DELETE", "/api/v1/agent/schedules/{scheduleId}", "json"),
    "pauseSchedule": Operation("POST", "/api/v1/agent/schedules/{scheduleId}/pause", "json"),
    "resumeSchedule": Operation("POST", "/api/v1/agent/schedules/{scheduleId}/resume", "json"),
    "createApiKey": Operation("POST", "/api/v1/api-keys", "json"),
    "listApiKeys": Operation("GET", "/api/v1/api-keys", "json"),
    "revokeApiKey": Operation("DELETE", "/api/v1/api-keys/{keyId}", "none"),
    "createRepository": Operation("POST", "/api/v1/repositories", "json"),
    "listRepositories": Operation("GET", "/api/v1/repositories", "json"),
    "getRepository": Operation("GET", "/api/v1/repositories/{owner}/{repo}", "json"),
    "deleteRepository": Operation("DELETE", "/api/v1/repositories/{owner}/{repo}", "none"),
    "listAgents": Operation("GET", "/api/v1/agent", "json"),
    "listHarnesses": Operation("GET", "/api/v1/agent/harnesses", "json"),
    "putFactorySource": Operation("PUT", "/api/v1/factories/{factoryUid}/source", "json"),
    "getFactorySource": Operation("GET", "/api/v1/factories/{factoryUid}/source", "json"),
    "deleteFactorySource": Operation("DELETE", "/api/v1/factories/{factoryUid}/source", "none"),
    "listFactorySourceApplies": Operation("GET", "/api/v1/factories/{factoryUid}/source/applies", "json"),
    "syncFactorySource": Operation("POST", "/api/v1/factories/{factoryUid}/source/sync", "json"),
    "createCallback": Operation("POST", "/api/v1/callbacks", "json"),
    "listCallbacks": Operation("GET", "/api/v1/callbacks", "json"),
    "getCallback": Operation("GET", "/api/v1/callbacks/{callbackId}", "json"),
    "patchCallback": Operation("PATCH", "/api/v1/callbacks/{callbackId}", "json"),
    "deleteCallback": Operation("DELETE", "/api/v1/callbacks/{callbackId}", "none"),
    "rotateCallbackSecret": Operation("POST", "/api/v1/callbacks/{callbackId}/rotate-secret", "json"),
    "listCallbackDeliveries": Operation("GET", "/api/v1/callbacks/{callbackId}/deliveries", "json"),
    "resendCallbackDelivery": Operation("POST", "/api/v1/callbacks/{callbackId}/deliveries/{deliveryId}/resend", "json"),
    "checkConversationRedirect": Operation("GET", "/api/v1/agent/conversations/{conversationId}/redirect", "json"),
    "listClientFactories": Operation("GET", "/api/v1/factory", "json"),
    "listHandoffAttachments": Operation("GET", "/api/v1/agent/runs/{runId}/handoff/attachments", "json"),
    "listCloudEnvironments": Operation("GET", "/api/v1/agent/environments", "json"),
    "getClientFactory": Operation("GET", "/api/v1/factory/{uid}", "json"),
    "dispatchFactoryRun": Operation("POST", "/api/v1/factory/{uid}/runs", "json"),
    "listInbox": Operation("GET", "/api/v1/factory-inbox", "json"),
    "markInboxRead": Operation("POST", "/api/v1/factory-inbox/notifications/read", "json"),
    "markInboxUnread": Operation("POST", "/api/v1/factory-inbox/notifications/unread", "json"),
}
