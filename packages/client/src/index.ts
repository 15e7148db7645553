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
  Webhooks,
} from './resources.js';
export type { RunEvent, StreamOptions } from './run-stream.js';
export type { WaitOptions } from './run-wait.js';
