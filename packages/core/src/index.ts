// The composition root
export { type AgentRun, type AgentRunWorkerOptions, createAgentRun } from './app/create-agent-run.js';
export type { AgentRunOptions } from './app/options.js';
export { type Authenticate, apiKeyAuthenticator, bearerToken, createApiKey } from './auth/api-keys.js';
// Auth
export { hasPermission, PERMISSIONS, type Principal } from './auth/principal.js';
export { ControlService, type ControlServiceOptions, type WebhookWithSecret } from './control/control-service.js';
export { generateStandardWebhooksSecret, generateToken, isUrlSafe } from './control/generated-secrets.js';
// Control plane
export * from './control/records.js';
export { SIGNATURE_SCHEMES, type SignatureScheme } from './control/schemas.js';
export { createSecretCipher, type SecretCipher, secretSlot } from './control/secret-cipher.js';
export * from './control/views.js';
export * from './control/wire.js';
export { AgentRunError, type AgentRunErrorOptions, ERROR_STATUS, type ErrorCode, isAgentRunError } from './errors.js';
// Events
export { type AgentRunEventMap, type AgentRunEvents, createEvents } from './events.js';
export { type DemoExecutorOptions, demoExecutor } from './executor/demo-executor.js';
export type { ExecutionContext, ExecutionInput, ExecutionOutcome, Executor, ProgressUpdate } from './executor/executor.js';
// Payload filters
export {
  compileFilter,
  explainFilter,
  FILTER_LIMITS,
  type FilterCondition,
  type FilterExplanation,
  type FilterOperators,
  type JsonValue,
  type PayloadFilter,
  type PayloadMatcher,
  parseFilter,
} from './filter/index.js';
export { type BodyReader, concatBytes, MAX_JSON_DEPTH, parseJsonBody, READ_BODY, readBodyLimited } from './http/body.js';
export { finishResponse, REQUEST_ID_HEADER, requestIdFrom } from './http/finish-response.js';
// HTTP
export { type AgentRunHandler, type AgentRunHandlerOptions, API_BASE, createAgentRunHandler } from './http/handler.js';
export { forwardToReal } from './http/lazy-web-object.js';
export { MOUNT_PATH, mountedBase } from './http/mount-path.js';
export { composeMounts, type Mountable } from './http/mountable.js';
export { jsonResponse, problemResponse } from './http/responses.js';
export { type BufferedResponse, bufferedResponse, textResponse } from './http/text-response.js';
export {
  type DeliveryIdentity,
  type IdentitySource,
  MAX_DELIVERY_ID_LENGTH,
  type ResolveDeliveryIdentityInput,
  resolveDeliveryIdentity,
} from './ingress/identity.js';
export {
  createIngress,
  DEFAULT_INGRESS_LIMITS,
  type Ingress,
  type IngressLimits,
  type IngressOptions,
  type IngressParams,
} from './ingress/pipeline.js';
// Webhook ingress
export * from './ingress/records.js';
export { EVENT_PAYLOAD_FILE, webhookPrompt, webhookRun } from './ingress/webhook-run.js';
// Maintenance
export {
  createMaintenance,
  DELIVERY_RETENTION,
  defaultMaintenanceTasks,
  type Maintenance,
  type MaintenanceOptions,
  type MaintenanceTask,
} from './maintenance/maintenance.js';
// Wire models (valibot schemas and their types)
export * from './models/config.js';
export * from './models/requests.js';
export * from './models/run.js';
export * from './models/run-state.js';
export { describeIssues, parseOrThrow } from './models/validate.js';
// Notifications
export {
  createNotificationHub,
  type Notification,
  type NotificationHub,
  type NotificationListener,
  type Notifications,
} from './notify/index.js';
// The route table and the OpenAPI document
export { type OpenApiDocument, openApiDocument } from './routes/openapi.js';
export {
  AREA_BASE,
  fullPath,
  type HttpMethod,
  type PathParamNames,
  type PathParams,
  type RouteArea,
  type RouteAuth,
  type RouteResponse,
  type RouteSpec,
} from './routes/route.js';
export { type OperationId, ROUTES, type RouteTable } from './routes/table.js';
export { decodeCursor, encodeCursor, type RunCursor } from './run/cursor.js';
export { DEFAULT_IDEMPOTENCY_TTL_MS, type IdempotencyContext, type WriteResult } from './run/idempotency.js';
export {
  compareCodePoints,
  comparePositions,
  compareRuns,
  isAfterPosition,
  matchesRunFilter,
  RUN_SORT_KEYS,
  type RunFilter,
  type RunListQuery,
  type RunPosition,
  type RunSortKey,
  type SortOrder,
  sortValue,
} from './run/list-query.js';
export { type AttachmentRecord, type FollowupRecord, type RunLease, type RunRecord, toRunItem } from './run/record.js';
export {
  type ApplyEventOptions,
  type ApplyEventResult,
  type CreateRunContext,
  RunService,
  type RunServiceOptions,
} from './run/run-service.js';
export { parseSkillSpec } from './run/skill.js';
// Runs
export {
  CANCELLABLE_STATES,
  isTerminal,
  LEASED_STATES,
  nextUpdatedAt,
  type RunEvent,
  type RunEventType,
  TERMINAL_STATES,
  type TransitionContext,
  type TransitionResult,
  transition,
} from './run/state-machine.js';
export { titleFromPrompt } from './run/title.js';

// Ports
export type * from './store/store.js';
// Utilities
export { type Clock, isoTime, systemClock } from './util/clock.js';
export { canonicalJson, sha256Hex } from './util/hash.js';
export { newId, randomToken } from './util/ids.js';
// Signature verifiers
export {
  ageProblem,
  type BodySignatureSpec,
  BUILTIN_VERIFIERS,
  type BuiltinHmacPort,
  type BuiltinSha256Port,
  bodySignatureProblem,
  builtinVerifiers,
  type CryptoImplementation,
  constantTimeEqual,
  createVerifierRegistry,
  decodeBase64,
  decodeHex,
  defaultHmac,
  defaultSha256,
  defineVerifier,
  githubVerifier,
  gitlabVerifier,
  type HmacPort,
  linearVerifier,
  nobleHmac,
  nobleSha256,
  parseUnixSeconds,
  type Sha256Port,
  type SuppliedInput,
  sentryVerifier,
  shopifyVerifier,
  slackVerifier,
  standardWebhooksKey,
  standardWebhooksVerifier,
  stripeVerifier,
  unverified,
  type Verifier,
  type VerifierRegistry,
  type VerifyInput,
  type VerifyResult,
  verified,
  verifierFor,
} from './verify/index.js';
export { createWorker, type Worker, type WorkerDeps, type WorkerOptions } from './worker/worker.js';
