/**
 * The part of docs/openapi.json the Python client is generated from: its operations and the JSON
 * Schemas of their bodies and answers (the subset @valibot/to-json-schema writes).
 */

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  $ref?: string;
  description?: string;
}

interface Media {
  schema?: JsonSchema;
}

export interface Answer {
  description?: string;
  content?: Record<string, Media>;
}

export interface Operation {
  operationId: string;
  summary?: string;
  tags?: string[];
  requestBody?: { content?: Record<string, Media> };
  responses: Record<string, Answer>;
}

export interface OpenApi {
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

export interface ClientOperation {
  method: string;
  path: string;
  operation: Operation;
}

/** Tags of the operations no client calls: the webhook ingress (providers do), the document itself, the probes. */
const NOT_FOR_CLIENTS = new Set(['ingress', 'meta', 'health']);

/** The operations a client calls, in the document's order. */
export function clientOperations(document: OpenApi): ClientOperation[] {
  const operations: ClientOperation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, value] of Object.entries(methods)) {
      const operation = value as Operation;
      if (typeof operation?.operationId !== 'string') continue;
      if ((operation.tags ?? []).some((tag) => NOT_FOR_CLIENTS.has(tag))) continue;
      operations.push({ method: method.toUpperCase(), path, operation });
    }
  }
  return operations;
}

/** The answers an operation gives when it succeeds (its 2xx), in the document's order. */
export const successes = (operation: Operation): [string, Answer][] =>
  Object.entries(operation.responses).filter(([status]) => /^2\d\d$/.test(status));

/** The JSON body an operation takes, if any. */
export const jsonBody = (operation: Operation): JsonSchema | undefined => operation.requestBody?.content?.['application/json']?.schema;

/** The schema a `$ref` (`#/components/schemas/<name>`) points at, with its name. */
export function dereference(document: OpenApi, ref: string): { name: string; schema: JsonSchema } {
  const name = ref.replace('#/components/schemas/', '');
  const schema = document.components?.schemas?.[name];
  if (schema === undefined || name === ref) throw new Error(`docs/openapi.json: no schema at ${ref}`);
  return { name, schema };
}

export const isNull = (schema: JsonSchema): boolean => schema.type === 'null';
