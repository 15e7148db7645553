import type * as api from '@agentrun/core/api';

/**
 * The operations the client calls, as the route table declares them (docs/architecture.md, "The
 * route table"). The client carries only method and path at run time, so it needs no core; the
 * types below are read from core's table and schemas, and `satisfies` fails the build when a
 * path here differs from the table's (a test compares methods too: operations.test.ts).
 */
type Routes = typeof api.ROUTES;

/** Operations a client calls: all but the webhook ingress (called by providers), the OpenAPI document and the health probes. */
export type ClientOperationId = Exclude<
  api.OperationId,
  'deliverWebhook' | 'deliverWebhookWithToken' | 'pushFactorySource' | 'getOpenApi' | 'getHealth' | 'getReadiness'
>;

type FullPath<K extends ClientOperationId> = `${Routes[K]['area'] extends 'webhooks' ? '/webhooks' : '/api/v1'}${Routes[K]['path']}`;

/** How an answer's body is read. */
type Content = 'json' | 'text' | 'binary' | 'none';

export interface OperationEntry<K extends ClientOperationId = ClientOperationId> {
  method: api.HttpMethod;
  path: FullPath<K>;
  content: Content;
}

export const OPERATIONS = {
  runAgent: { method: 'POST', path: '/api/v1/agent/run', content: 'json' },
  createRun: { method: 'POST', path: '/api/v1/agent/runs', content: 'json' },
  listRuns: { method: 'GET', path: '/api/v1/agent/runs', content: 'json' },
  getRun: { method: 'GET', path: '/api/v1/agent/runs/{runId}', content: 'json' },
  followupRun: { method: 'POST', path: '/api/v1/agent/runs/{runId}/followups', content: 'json' },
  cancelRun: { method: 'POST', path: '/api/v1/agent/runs/{runId}/cancel', content: 'text' },
  getRunAttachment: { method: 'GET', path: '/api/v1/agent/runs/{runId}/attachments/{fileName}', content: 'binary' },
  listRunEvents: { method: 'GET', path: '/api/v1/agent/runs/{runId}/events', content: 'json' },
  getRunTranscript: { method: 'GET', path: '/api/v1/agent/runs/{runId}/transcript', content: 'text' },
  checkSessionRedirect: { method: 'GET', path: '/api/v1/agent/sessions/{sessionUuid}/redirect', content: 'json' },
  getArtifact: { method: 'GET', path: '/api/v1/agent/artifacts/{artifactUid}', content: 'json' },
  downloadArtifact: { method: 'GET', path: '/api/v1/artifacts/{artifactUid}/download', content: 'binary' },
  createFactory: { method: 'POST', path: '/api/v1/factories', content: 'json' },
  listFactories: { method: 'GET', path: '/api/v1/factories', content: 'json' },
  getFactory: { method: 'GET', path: '/api/v1/factories/{factoryUid}', content: 'json' },
  listSecrets: { method: 'GET', path: '/api/v1/team/secrets', content: 'json' },
  putSecret: { method: 'PUT', path: '/api/v1/team/secrets/{name}', content: 'json' },
  deleteSecret: { method: 'DELETE', path: '/api/v1/team/secrets/{name}', content: 'none' },
  createWebhook: { method: 'POST', path: '/api/v1/factories/{factoryUid}/webhooks', content: 'json' },
  listWebhooks: { method: 'GET', path: '/api/v1/factories/{factoryUid}/webhooks', content: 'json' },
  getWebhook: { method: 'GET', path: '/api/v1/factories/{factoryUid}/webhooks/{webhookUid}', content: 'json' },
  patchWebhook: { method: 'PATCH', path: '/api/v1/factories/{factoryUid}/webhooks/{webhookUid}', content: 'json' },
  deleteWebhook: { method: 'DELETE', path: '/api/v1/factories/{factoryUid}/webhooks/{webhookUid}', content: 'none' },
  rotateWebhookSecret: { method: 'POST', path: '/api/v1/factories/{factoryUid}/webhooks/{webhookUid}/rotate-secret', content: 'json' },
  putProviderSecret: { method: 'PUT', path: '/api/v1/factories/{factoryUid}/webhooks/{webhookUid}/provider-secret', content: 'json' },
  listDeliveries: { method: 'GET', path: '/api/v1/factories/{factoryUid}/webhooks/{webhookUid}/deliveries', content: 'json' },
  getDelivery: { method: 'GET', path: '/api/v1/factories/{factoryUid}/webhooks/{webhookUid}/deliveries/{deliveryId}', content: 'json' },
  getDeliveryPayload: {
    method: 'GET',
    path: '/api/v1/factories/{factoryUid}/webhooks/{webhookUid}/deliveries/{deliveryId}/payload',
    content: 'binary',
  },
  resendDelivery: {
    method: 'POST',
    path: '/api/v1/factories/{factoryUid}/webhooks/{webhookUid}/deliveries/{deliveryId}/resend',
    content: 'json',
  },
  createAutomation: { method: 'POST', path: '/api/v1/factories/{factoryUid}/automations', content: 'json' },
  listAutomations: { method: 'GET', path: '/api/v1/factories/{factoryUid}/automations', content: 'json' },
  getAutomation: { method: 'GET', path: '/api/v1/factories/{factoryUid}/automations/{automationId}', content: 'json' },
  patchAutomation: { method: 'PATCH', path: '/api/v1/factories/{factoryUid}/automations/{automationId}', content: 'json' },
  deleteAutomation: { method: 'DELETE', path: '/api/v1/factories/{factoryUid}/automations/{automationId}', content: 'none' },
  testFilter: { method: 'POST', path: '/api/v1/factories/{factoryUid}/automations/{automationId}/test-filter', content: 'json' },
  applyDefinitions: { method: 'POST', path: '/api/v1/factories/{factoryUid}/apply', content: 'json' },
  listAuditEvents: { method: 'GET', path: '/api/v1/audit/events', content: 'json' },
  createEnvironment: { method: 'POST', path: '/api/v1/environments', content: 'json' },
  listEnvironments: { method: 'GET', path: '/api/v1/environments', content: 'json' },
  getEnvironment: { method: 'GET', path: '/api/v1/environments/{environmentId}', content: 'json' },
  replaceEnvironment: { method: 'PUT', path: '/api/v1/environments/{environmentId}', content: 'json' },
  deleteEnvironment: { method: 'DELETE', path: '/api/v1/environments/{environmentId}', content: 'none' },
  createAgentIdentity: { method: 'POST', path: '/api/v1/agent/identities', content: 'json' },
  listAgentIdentities: { method: 'GET', path: '/api/v1/agent/identities', content: 'json' },
  updateAgentIdentity: { method: 'PUT', path: '/api/v1/agent/identities/{identityUid}', content: 'json' },
  deleteAgentIdentity: { method: 'DELETE', path: '/api/v1/agent/identities/{identityUid}', content: 'none' },
  createSchedule: { method: 'POST', path: '/api/v1/agent/schedules', content: 'json' },
  listSchedules: { method: 'GET', path: '/api/v1/agent/schedules', content: 'json' },
  getSchedule: { method: 'GET', path: '/api/v1/agent/schedules/{scheduleId}', content: 'json' },
  updateSchedule: { method: 'PUT', path: '/api/v1/agent/schedules/{scheduleId}', content: 'json' },
  deleteSchedule: { method: 'DELETE', path: '/api/v1/agent/schedules/{scheduleId}', content: 'json' },
  pauseSchedule: { method: 'POST', path: '/api/v1/agent/schedules/{scheduleId}/pause', content: 'json' },
  resumeSchedule: { method: 'POST', path: '/api/v1/agent/schedules/{scheduleId}/resume', content: 'json' },
  createApiKey: { method: 'POST', path: '/api/v1/api-keys', content: 'json' },
  listApiKeys: { method: 'GET', path: '/api/v1/api-keys', content: 'json' },
  revokeApiKey: { method: 'DELETE', path: '/api/v1/api-keys/{keyId}', content: 'none' },
  createRepository: { method: 'POST', path: '/api/v1/repositories', content: 'json' },
  listRepositories: { method: 'GET', path: '/api/v1/repositories', content: 'json' },
  getRepository: { method: 'GET', path: '/api/v1/repositories/{owner}/{repo}', content: 'json' },
  deleteRepository: { method: 'DELETE', path: '/api/v1/repositories/{owner}/{repo}', content: 'none' },
  listAgents: { method: 'GET', path: '/api/v1/agent', content: 'json' },
  listHarnesses: { method: 'GET', path: '/api/v1/agent/harnesses', content: 'json' },
  listWorkers: { method: 'GET', path: '/api/v1/workers', content: 'json' },
  getRunStats: { method: 'GET', path: '/api/v1/stats/runs', content: 'json' },
  getRunDurationStats: { method: 'GET', path: '/api/v1/stats/run-durations', content: 'json' },
  getDeliveryStats: { method: 'GET', path: '/api/v1/stats/deliveries', content: 'json' },
  getQueueStats: { method: 'GET', path: '/api/v1/stats/queue', content: 'json' },
  getCallbackStats: { method: 'GET', path: '/api/v1/stats/callbacks', content: 'json' },
  putFactorySource: { method: 'PUT', path: '/api/v1/factories/{factoryUid}/source', content: 'json' },
  getFactorySource: { method: 'GET', path: '/api/v1/factories/{factoryUid}/source', content: 'json' },
  deleteFactorySource: { method: 'DELETE', path: '/api/v1/factories/{factoryUid}/source', content: 'none' },
  listFactorySourceApplies: { method: 'GET', path: '/api/v1/factories/{factoryUid}/source/applies', content: 'json' },
  syncFactorySource: { method: 'POST', path: '/api/v1/factories/{factoryUid}/source/sync', content: 'json' },
  createCallback: { method: 'POST', path: '/api/v1/callbacks', content: 'json' },
  listCallbacks: { method: 'GET', path: '/api/v1/callbacks', content: 'json' },
  getCallback: { method: 'GET', path: '/api/v1/callbacks/{callbackId}', content: 'json' },
  patchCallback: { method: 'PATCH', path: '/api/v1/callbacks/{callbackId}', content: 'json' },
  deleteCallback: { method: 'DELETE', path: '/api/v1/callbacks/{callbackId}', content: 'none' },
  rotateCallbackSecret: { method: 'POST', path: '/api/v1/callbacks/{callbackId}/rotate-secret', content: 'json' },
  listCallbackDeliveries: { method: 'GET', path: '/api/v1/callbacks/{callbackId}/deliveries', content: 'json' },
  resendCallbackDelivery: { method: 'POST', path: '/api/v1/callbacks/{callbackId}/deliveries/{deliveryId}/resend', content: 'json' },
  checkConversationRedirect: { method: 'GET', path: '/api/v1/agent/conversations/{conversationId}/redirect', content: 'json' },
  listClientFactories: { method: 'GET', path: '/api/v1/factory', content: 'json' },
  getClientFactory: { method: 'GET', path: '/api/v1/factory/{uid}', content: 'json' },
  dispatchFactoryRun: { method: 'POST', path: '/api/v1/factory/{uid}/runs', content: 'json' },
  listHandoffAttachments: { method: 'GET', path: '/api/v1/agent/runs/{runId}/handoff/attachments', content: 'json' },
  listCloudEnvironments: { method: 'GET', path: '/api/v1/agent/environments', content: 'json' },
  listInbox: { method: 'GET', path: '/api/v1/factory-inbox', content: 'json' },
  markInboxRead: { method: 'POST', path: '/api/v1/factory-inbox/notifications/read', content: 'json' },
  markInboxUnread: { method: 'POST', path: '/api/v1/factory-inbox/notifications/unread', content: 'json' },
} as const satisfies { [K in ClientOperationId]: OperationEntry<K> };

/** valibot keeps a schema's input and output types under `~types` (types only, never set at run time). */
type SchemaInput<S> = S extends { readonly '~types'?: { readonly input: infer I } | undefined } ? I : never;
type SchemaOutput<S> = S extends { readonly '~types'?: { readonly output: infer O } | undefined } ? O : never;

/**
 * What a body schema accepts, as a caller should write it: core's `jsonObject` is a pipe of a
 * plain-object check (typed as any record) and the strict object, so the strict object's input is
 * taken, through pipes and unions.
 */
type WireInput<S> = S extends { readonly type: 'union'; readonly options: readonly (infer O)[] }
  ? WireInput<O>
  : S extends { readonly pipe: readonly [infer First, ...infer Rest] }
    ? First extends { readonly pipe: readonly unknown[] }
      ? WireInput<First>
      : First extends { readonly type: 'custom' }
        ? Rest extends readonly [infer Next, ...unknown[]]
          ? WireInput<Next>
          : SchemaInput<S>
        : WireInput<First>
    : SchemaInput<S>;

/** The schema a route declares for a part (`body`, `query`), read from the table's literal types. */
type SchemaOf<K extends ClientOperationId, F extends 'body' | 'query'> = F extends 'body'
  ? Routes[K] extends { body: { schema: infer S } }
    ? S
    : undefined
  : Routes[K] extends { query: infer S }
    ? S
    : undefined;

/** The schema of a route's success answer (its 2xx statuses share one), read from the table. */
type ResponseSchemaOf<K extends ClientOperationId> = {
  [Status in keyof Routes[K]['responses']]: Status extends 200 | 201 | 202
    ? Routes[K]['responses'][Status] extends { schema: infer S }
      ? S
      : never
    : never;
}[keyof Routes[K]['responses']];

type ByContent = { json: never; text: string; binary: ArrayBuffer; none: undefined };

/** What an operation answers, read as its table entry says. */
export type ResponseOf<K extends ClientOperationId> = (typeof OPERATIONS)[K]['content'] extends 'json'
  ? SchemaOutput<ResponseSchemaOf<K>>
  : ByContent[(typeof OPERATIONS)[K]['content']];

/** The JSON body an operation takes (its schema's input type). */
export type BodyOf<K extends ClientOperationId> = K extends 'cancelRun'
  ? Record<string, never>
  : K extends 'rotateWebhookSecret'
    ? { secret?: string }
    : WireInput<SchemaOf<K, 'body'>>;

/** Query parameters of an operation (strings or arrays of strings on the wire; numbers are written out). */
export type QueryOf<K extends ClientOperationId> =
  SchemaOf<K, 'query'> extends undefined
    ? never
    : { [Q in keyof SchemaInput<SchemaOf<K, 'query'>>]?: SchemaInput<SchemaOf<K, 'query'>>[Q] | number };

/** The path params of an operation, from its path template. */
export type ParamsOf<K extends ClientOperationId> = api.PathParams<Routes[K]['path']>;
