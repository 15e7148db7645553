// `@agentrun/core`: what an application embedding agentrun uses (docs/embedding.md). Further
// entries: `/api` (the wire contract: route table, OpenAPI, schemas), `/store` (for store
// implementations), `/filter` (payload filters), `/verify` (signature verifiers and hashing),
// `/testing` (conformance suites), `/internal` (agentrun's own adapters). docs/architecture.md
// says what lives where.

// The composition root and its HTTP surface
export type { AgentRunRunner, AgentRunRunnerOptions, AgentRunRunsOptions } from './app/agent-run-runner.js';
export { type AgentRun, type AgentRunWorkerOptions, createAgentRun } from './app/create-agent-run.js';
export type { AgentRunOptions, CallbackOptions } from './app/options.js';
// Artifacts (docs/artifacts.md)
export type { BlobStore, StoredBlob } from './artifacts/blob-store.js';
export { type ArtifactLimits, DEFAULT_ARTIFACT_LIMITS } from './artifacts/limits.js';
export { ARTIFACT_TYPES, type ArtifactItem, type ArtifactType } from './artifacts/model.js';
export type { ArtifactReportResult, ReportedArtifact } from './artifacts/report.js';
// Audit (docs/operations.md, "Audit")
export { type AuditTarget, auditEvent, recordAuditEvent } from './audit/event.js';
export { AUDIT_EVENT_KINDS, type AuditEventKind, type AuditEventRecord } from './audit/records.js';
// Auth
export { type ApiKeyOptions, type Authenticate, apiKeyAuthenticator, bearerToken, createApiKey } from './auth/api-keys.js';
export { hasPermission, PERMISSIONS, type Principal } from './auth/principal.js';
export { type CallbackRetryPolicy, DEFAULT_CALLBACK_POLICY } from './callbacks/policy.js';
export { type CallbackRequest, type CallbackResponse, type CallbackSender, fetchCallbackSender } from './callbacks/sender.js';
// Services, events, notifications
export type { ControlService, WebhookWithSecret } from './control/control-service.js';
export type { SecretKeyOption } from './control/secret-cipher.js';
// Execution
export { type ContainerLimits, type ResolvedEnvironment, type ResolvedRepository, SecretValue } from './environments/resolved.js';
// Errors
export { AgentRunError, type AgentRunErrorOptions, ERROR_STATUS, type ErrorCode, isAgentRunError } from './errors.js';
export { type AgentRunEventMap, type AgentRunEvents, createEvents } from './events.js';
export { type DemoExecutorOptions, demoExecutor } from './executor/demo-executor.js';
export type {
  ExecutionContext,
  ExecutionInput,
  ExecutionOutcome,
  Executor,
  ProgressUpdate,
  RecordOptions,
  ToolCall,
  ToolResult,
  TranscriptEntry,
} from './executor/executor.js';
// Harnesses (docs/harnesses.md)
export { type AuthSecretSource, authSecretSourceFor, namedHarness } from './harness/harness-auth.js';
export {
  DEFAULT_HARNESS_NAME,
  HARNESS_AUTH_FIELDS,
  HARNESS_TYPES,
  type HarnessAuthField,
  type HarnessInfo,
  type HarnessType,
} from './harness/harness-types.js';
export type { HarnessAuth } from './harness/resolve-harness-auth.js';
export { type AgentRunHandler, type AgentRunHandlerOptions, API_BASE, createAgentRunHandler } from './http/handler.js';
export { composeMounts, type Mountable } from './http/mountable.js';
export type { StreamLimits } from './http/paced-body.js';
// Limits and options of the ingress
export { DEFAULT_INGRESS_LIMITS, type IngressLimits } from './ingress/pipeline.js';
export { EVENT_PAYLOAD_FILE } from './ingress/webhook-run.js';
export type { ApiKeyEvent, ApiKeyService } from './keys/key-service.js';
export { API_KEY_SCOPES, type ApiKeyScope, allows } from './keys/scopes.js';
export type { Logger } from './logging/logger.js';
export { AUDIT_RETENTION, auditSweepTask } from './maintenance/audit-sweep.js';
// Maintenance
export {
  createMaintenance,
  DELIVERY_RETENTION,
  defaultMaintenanceTasks,
  type Maintenance,
  type MaintenanceOptions,
  type MaintenanceTask,
} from './maintenance/maintenance.js';
export type { CallbackResealReport, ResealOptions, ResealReport } from './maintenance/reseal-secrets.js';
// The wire models most code touches; the whole contract (schemas, route table, OpenAPI) is `/api`
export type { AmbientAgentConfig } from './models/config.js';
export type { RunAgentRequest, RunFollowupRequest } from './models/requests.js';
export type { ListRunsResponse, RunAgentResponse, RunFollowupResponse, RunItem, RunStatusMessage } from './models/run.js';
export { RUN_STATES, type RunSourceType, type RunState } from './models/run-state.js';
export type { Notification, NotificationListener, Notifications } from './notify/index.js';
export {
  type RepositoryAccess,
  RepositoryError,
  type RepositoryErrorCode,
  type RepositoryReader,
} from './repositories/reader.js';
export { RUN_ERROR_CODES, type RunErrorCode } from './run/error-codes.js';
export type { WriteResult } from './run/idempotency.js';
export type { FollowupRecord } from './run/record.js';
export type { RunService } from './run/run-service.js';
// The runner (docs/embedding.md, "The runner"): a process's parts, and the loop each runs on, for a part of the host's own.
export { type BackoffOptions, MAX_BACKOFF_MS } from './runner/backoff.js';
export { createLoop, type Loop, type LoopHealth, type LoopOptions, type PassCause } from './runner/loop.js';
export { type LoopPartOptions, loopPart, ReportedFailure, type RunnerPart } from './runner/part.js';
export {
  createRunner,
  type PartHealth,
  type Runner,
  type RunnerHealth,
  type RunnerOptions,
  type RunnerStopOptions,
} from './runner/runner.js';
// Schedules (docs/schedules.md): the scheduler a runner runs (its `schedules` part), for a host that drives its own.
export { createScheduler, type Scheduler, type SchedulerOptions, type SchedulerTick } from './schedules/scheduler.js';
export type { Store } from './store/store.js';
export { type Clock, systemClock } from './util/clock.js';
export { createWorker, type Worker, type WorkerDeps, type WorkerOptions, type WorkerStopOptions } from './worker/worker.js';
