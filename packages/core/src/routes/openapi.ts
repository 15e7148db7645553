import { type ConversionConfig, toJsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { AmbientAgentConfigSchema } from '../models/config.js';
import { RunItemSchema } from '../models/run.js';
import { AREA_BASE, fullPath, type RouteSpec } from './route.js';
import type { RouteTable } from './table.js';

/**
 * The OpenAPI 3.1 document of a route table, generated from its valibot schemas
 * (@valibot/to-json-schema). Served at `GET /api/v1/openapi.json` with the server's own base URL,
 * and committed as docs/openapi.json (a test keeps it current).
 */
export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, OpenApiOperation>> };

export interface OpenApiOperation {
  operationId: string;
  [key: string]: unknown;
}

/** Shared schemas written once under `components.schemas` and referred to elsewhere. */
const SHARED = { RunItem: RunItemSchema, AmbientAgentConfig: AmbientAgentConfigSchema } as const;

const PROBLEM = {
  type: 'object',
  description: 'An RFC 9457 problem (docs/run-api.md, "Errors").',
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    error: { type: 'string', description: 'The error code, e.g. invalid_request, not_found, rate_limited.' },
    detail: { type: 'string' },
    retryable: { type: 'boolean' },
    request_id: { type: 'string', description: 'The x-request-id of the answer.' },
    errors: {
      type: 'array',
      description: 'Every problem found, each at its dot path (e.g. webhooks.2.secret_name), when a request has several.',
      items: {
        type: 'object',
        properties: { path: { type: 'string' }, detail: { type: 'string' } },
        required: ['path', 'detail'],
      },
    },
  },
  required: ['type', 'title', 'status', 'error'],
};

export function openApiDocument(table: RouteTable, options: { serverUrl?: string; version?: string } = {}): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const [operationId, spec] of Object.entries(table) as [string, RouteSpec][]) {
    const path = fullPath(spec);
    paths[path] ??= {};
    (paths[path] as Record<string, OpenApiOperation>)[spec.method.toLowerCase()] = operation(operationId, spec);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'agentrun',
      version: options.version ?? '1',
      description: `The run API (${AREA_BASE.api}), the management API and the webhook ingress (${AREA_BASE.webhooks}) of agentrun.`,
    },
    servers: [{ url: options.serverUrl ?? '/' }],
    tags: [...new Set(Object.values(table).map((s) => s.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An agentrun API key.' } },
      schemas: { ...fromRefs(toJsonSchemaDefs(SHARED, config('output'))), Problem: PROBLEM },
      responses: {
        Problem: {
          description: 'An error.',
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
        },
      },
    },
  };
}

function operation(operationId: string, spec: RouteSpec): OpenApiOperation {
  const parameters: unknown[] = Object.entries(spec.params as Record<string, string>).map(([name, description]) => ({
    name,
    in: 'path',
    required: true,
    description,
    schema: { type: 'string' },
  }));
  if (spec.query) {
    const query = schemaOf(spec.query, 'ignore') as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, schema] of Object.entries(query.properties ?? {})) {
      parameters.push({ name, in: 'query', required: query.required?.includes(name) ?? false, schema });
    }
  }
  if (spec.idempotent) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'The same key within 24 h answers the first response again and writes nothing new.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    const content = response.content ?? (response.schema ? 'json' : 'none');
    responses[status] = {
      description: response.description,
      ...(content === 'json' && response.schema
        ? { content: { 'application/json': { schema: schemaOf(response.schema, 'output') } } }
        : {}),
      ...(content === 'text' ? { content: { 'text/plain': { schema: { type: 'string' } } } } : {}),
      ...(content === 'html' ? { content: { 'text/html': { schema: { type: 'string' } } } } : {}),
      ...(content === 'binary'
        ? { content: { 'application/octet-stream': { schema: { type: 'string', contentEncoding: 'binary' } } } }
        : {}),
    };
  }
  responses.default = { $ref: '#/components/responses/Problem' };
  return {
    operationId,
    summary: spec.summary,
    tags: [spec.tag],
    ...(spec.aliasOf ? { description: `An alias of \`${spec.aliasOf}\`.` } : {}),
    security: spec.auth === 'api_key' ? [{ apiKey: [] }] : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(spec.body
      ? {
          requestBody: {
            required: spec.body.presence === 'required',
            content: { 'application/json': { schema: schemaOf(spec.body.schema, 'ignore') } },
          },
        }
      : {}),
    responses,
  };
}

const config = (typeMode: 'ignore' | 'output'): ConversionConfig => ({
  target: 'draft-2020-12',
  typeMode,
  errorMode: 'ignore',
  definitions: SHARED,
});

/**
 * A schema as JSON Schema, with the shared ones as `$ref`s into `components.schemas`. Requests are
 * converted by their declared structure (`ignore`): their pipes open with a JSON-object check that
 * has no JSON Schema form, and `input` mode would stop there.
 */
function schemaOf(schema: v.GenericSchema, typeMode: 'ignore' | 'output'): unknown {
  const { $schema: _, $defs: __, ...json } = toJsonSchema(schema, config(typeMode)) as Record<string, unknown>;
  return fromRefs(json);
}

/** to-json-schema refers to `#/$defs/X`; an OpenAPI document keeps them in `#/components/schemas/X`. */
const fromRefs = <T>(value: T): T => JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/'));
