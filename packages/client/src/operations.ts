import type * as api from '@agentrun/core/api';

/**
 * The operations the client calls, as the route table declares them (docs/architecture.md, "The
 * route table"). The client carries only method and path at run time, so it needs no core; the
 * types below are read from core's table and schemas, and `satisfies` fails the build when a
 * path here differs from the table's (a test compares methods too: operations.test.ts).
 */
type Routes = typeof api.ROUTES;

/** Operations a client calls: all but the webhook ingress (called by providers) and the OpenAPI document. */
export type ClientOperationId = Exclude<api.OperationId, 'deliverWebhook' | 'deliverWebhookWithToken' | 'getOpenApi'>;

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
  createAutomation: { method: 'POST', path: '/api/v1/factories/{factoryUid}/automations', content: 'json' },
  listAutomations: { method: 'GET', path: '/api/v1/factories/{factoryUid}/automations', content: 'json' },
  getAutomation: { method: 'GET', path: '/api/v1/factories/{factoryUid}/automations/{automationId}', content: 'json' },
  patchAutomation: { method: 'PATCH', path: '/api/v1/factories/{factoryUid}/automations/{automationId}', content: 'json' },
  deleteAutomation: { method: 'DELETE', path: '/api/v1/factories/{factoryUid}/automations/{automationId}', content: 'none' },
  testFilter: { method: 'POST', path: '/api/v1/factories/{factoryUid}/automations/{automationId}/test-filter', content: 'json' },
  applyDefinitions: { method: 'POST', path: '/api/v1/factories/{factoryUid}/apply', content: 'json' },
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

/**
 * The schemas of each operation. The table's own entries type their schemas as any valibot
 * schema, so the exact ones are named here, from `@agentrun/core/api`.
 */
interface Schemas {
  runAgent: { body: typeof api.RunAgentRequestSchema; response: typeof api.RunAgentResponseSchema };
  createRun: { body: typeof api.RunAgentRequestSchema; response: typeof api.RunAgentResponseSchema };
  listRuns: { query: typeof api.ListRunsQuerySchema; response: typeof api.ListRunsResponseSchema };
  getRun: { response: typeof api.RunItemSchema };
  followupRun: { body: typeof api.RunFollowupRequestSchema; response: typeof api.RunFollowupResponseSchema };
  listRunEvents: { query: typeof api.ListRunEventsQuerySchema; response: typeof api.ListRunEventsResponseSchema };
  createFactory: { body: typeof api.CreateFactorySchema; response: typeof api.FactoryViewSchema };
  listFactories: { response: typeof api.FactoryListSchema };
  getFactory: { response: typeof api.FactoryViewSchema };
  listSecrets: { response: typeof api.SecretListSchema };
  putSecret: { body: typeof api.PutSecretSchema; response: typeof api.SecretViewSchema };
  createWebhook: { body: typeof api.CreateWebhookSchema; response: typeof api.WebhookWithSecretSchema };
  listWebhooks: { response: typeof api.WebhookListSchema };
  getWebhook: { response: typeof api.WebhookViewSchema };
  patchWebhook: { body: typeof api.PatchWebhookSchema; response: typeof api.WebhookViewSchema };
  rotateWebhookSecret: { response: typeof api.WebhookWithSecretSchema };
  putProviderSecret: { body: typeof api.ProviderSecretSchema; response: typeof api.WebhookViewSchema };
  listDeliveries: { query: typeof api.ListDeliveriesQuerySchema; response: typeof api.DeliveryListSchema };
  getDelivery: { response: typeof api.DeliveryDetailSchema };
  listAutomations: { response: typeof api.AutomationListSchema };
  createAutomation: { body: typeof api.CreateAutomationSchema; response: typeof api.AutomationViewSchema };
  getAutomation: { response: typeof api.AutomationViewSchema };
  patchAutomation: { body: typeof api.PatchAutomationSchema; response: typeof api.AutomationViewSchema };
  testFilter: { body: typeof api.TestFilterSchema; response: typeof api.TestFilterResultSchema };
  applyDefinitions: { body: typeof api.ApplyDefinitionsSchema; response: typeof api.ApplyResultSchema };
}

type SchemaOf<K extends ClientOperationId, F extends string> = K extends keyof Schemas
  ? Schemas[K] extends Record<F, infer S>
    ? S
    : undefined
  : undefined;

type ByContent = { json: never; text: string; binary: ArrayBuffer; none: undefined };

/** What an operation answers, read as its table entry says. */
export type ResponseOf<K extends ClientOperationId> = (typeof OPERATIONS)[K]['content'] extends 'json'
  ? SchemaOutput<SchemaOf<K, 'response'>>
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
