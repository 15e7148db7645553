// The wire's lists, from core's sources: the build copies these values in, so the client still
// needs no core at run time (tsup.config.ts).

export type { AuditEventKind, DeliveryStatLabel, HarnessType, RunDurationGrouping, RunState, StatsRange } from '@agentrun/core/api';
export {
  AUDIT_EVENT_KINDS,
  DEFAULT_STATS_RANGE,
  DELIVERY_STAT_LABELS,
  HARNESS_TYPES,
  RUN_DURATION_GROUPINGS,
  RUN_STATES,
  STATS_RANGE_NAMES,
  STATS_RANGES,
  TERMINAL_STATES,
} from '@agentrun/core/api';
export { AgentRunClient, type AnswerCheck, type ClientOptions, type Fetch, type RequestArgs, type RequestOptions } from './client.js';
export * from './errors.js';
export type { BodyOf, ClientOperationId, ParamsOf, QueryOf, ResponseOf } from './operations.js';
export {
  AgentIdentities,
  Agents,
  ApiKeys,
  Artifacts,
  Audit,
  Automations,
  Callbacks,
  Deliveries,
  Environments,
  Factories,
  Repositories,
  Runs,
  Schedules,
  Secrets,
  Sources,
  Stats,
  Webhooks,
  Workers,
} from './resources.js';
export type { RunEvent, StreamOptions } from './run-stream.js';
export type { WaitOptions } from './run-wait.js';
