// `@agentrun/core/api`: the wire contract, for clients and tools: the route table, the OpenAPI
// document made from it, and the valibot schemas (with their types) of every request and answer
// (docs/architecture.md, "The route table").

export { ARTIFACT_TYPES, type ArtifactType } from './artifacts/model.js';
export { AUDIT_EVENT_KINDS, type AuditEventKind } from './audit/records.js';
export * from './audit/wire.js';
export { AUTH_MODES, type AuthMode } from './control/records.js';
export {
  CreateAutomationSchema,
  CreateFactorySchema,
  CreateWebhookSchema,
  PatchAutomationSchema,
  PatchWebhookSchema,
  ProviderSecretSchema,
  PutSecretSchema,
  SecretNameSchema,
  SIGNATURE_SCHEMES,
  type SignatureScheme,
  TestFilterSchema,
} from './control/schemas.js';
export * from './control/wire.js';
export {
  DEFINITION_KINDS,
  type DefinitionProblem,
  type DefinitionText,
  definitionFileKind,
  type LoadedDefinitions,
  MAX_YAML_ALIASES,
  problemLine,
  readDefinitions,
} from './definitions/directory.js';
export { fileKey } from './definitions/file-keys.js';
export { type FieldProblem, locateProblems } from './definitions/locate.js';
export {
  type ApplyDefinitions,
  ApplyDefinitionsSchema,
  type AutomationDefinition,
  type AutomationFile,
  AutomationFileSchema,
  type TriggerDefinition,
  triggerParts,
  type WebhookDefinition,
} from './definitions/schemas.js';
export * from './definitions/wire.js';
export { HARNESS_TYPES, type HarnessType } from './harness/harness-types.js';
export { DELIVERY_STATUSES, type DeliveryStatus } from './ingress/records.js';
export { type CreateApiKey, CreateApiKeySchema } from './keys/schemas.js';
export { API_KEY_SCOPE_DESCRIPTIONS, API_KEY_SCOPES, type ApiKeyScope } from './keys/scopes.js';
export * from './keys/wire.js';
export * from './models/config.js';
export * from './models/requests.js';
export * from './models/run.js';
export * from './models/run-events.js';
export * from './models/run-state.js';
export { type OpenApiDocument, type OpenApiOperation, openApiDocument } from './routes/openapi.js';
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
export { RUN_SORT_KEYS, type RunSortKey } from './run/list-query.js';
export { type RunStartedBy, startedBy } from './run/started-status.js';
export { MAX_SUMMARY, toolInputText, toolSummary, toolSummaryText } from './run/tool-summary.js';
export { type PutSource, PutSourceSchema } from './sources/schemas.js';
export * from './sources/wire.js';
export { bucketIndex, bucketStarts, type StatsWindow, statsWindow } from './stats/buckets.js';
export { DURATION_HISTOGRAM_BOUNDS_MS, durationBucket, percentileFromHistogram } from './stats/histogram.js';
export {
  DEFAULT_STATS_RANGE,
  DELIVERY_STAT_LABELS,
  type DeliveryStatLabel,
  RUN_DURATION_GROUPINGS,
  type RunDurationGrouping,
  STATS_RANGE_NAMES,
  STATS_RANGES,
  type StatsRange,
} from './stats/ranges.js';
export * from './stats/wire.js';
