import type * as v from 'valibot';

/**
 * One HTTP operation of agentrun, as data: the router, `owns()`, the OpenAPI document and the
 * typed client are all derived from these (docs/architecture.md, "The route table"). No handler
 * code lives here, so a client can import the table without the server.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Where a route lives: its paths are relative to the area's base (`/api/v1`, `/webhooks`, and the probes at the mount point). */
export type RouteArea = 'api' | 'webhooks' | 'health';

/** How a caller is authenticated: an API key, the webhook's own secret, or not at all. */
export type RouteAuth = 'api_key' | 'webhook' | 'none';

/** The names of a path template's `{params}`: `'/runs/{runId}/files/{name}'` → `'runId' | 'name'`. */
export type PathParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParamNames<Rest> : never;

/** A path template's params as the handler receives them, decoded. */
export type PathParams<P extends string> = { [K in PathParamNames<P>]: string };

/** What a route answers with a given status. */
export interface RouteResponse {
  description: string;
  /** `json` (the default when a schema is given), `text` (text/plain), `html` (text/html), `binary` (its own type), or no body. */
  content?: 'json' | 'text' | 'html' | 'binary' | 'none';
  schema?: v.GenericSchema;
}

export interface RouteSpec<P extends string = string, A extends RouteAuth = RouteAuth> {
  method: HttpMethod;
  area: RouteArea;
  /** Relative to the area's base; `{name}` marks a path param. */
  path: P;
  auth: A;
  /** Grouping in the OpenAPI document and the client. */
  tag:
    | 'runs'
    | 'factories'
    | 'secrets'
    | 'webhooks'
    | 'deliveries'
    | 'automations'
    | 'ingress'
    | 'meta'
    | 'audit'
    | 'keys'
    | 'health'
    | 'repositories'
    | 'environments'
    | 'schedules'
    | 'callbacks'
    | 'agent identities'
    | 'workers'
    | 'stats';
  summary: string;
  /** A description of every path param (the type requires one for each `{name}` in `path`). */
  params: { [K in PathParamNames<P>]: string };
  /** Query parameters: a valibot object of strings (a repeatable one is an array of strings). */
  query?: v.GenericSchema;
  /** The JSON body: `required` (a 400 without one) or `optional` (an empty body is allowed). */
  body?: { schema: v.GenericSchema; presence: 'required' | 'optional' };
  /** Answers by status; error answers are problem+json and listed once for all routes. */
  responses: Record<number, RouteResponse>;
  /** Accepts an `Idempotency-Key` header (docs/run-api.md, "Idempotency"). */
  idempotent?: boolean;
  /** Kept for a published client; `aliasOf` names the operation it repeats. */
  aliasOf?: string;
}

/**
 * Declare a route, keeping everything about it as literal types: its path and auth type its
 * handler, its schemas type the client's bodies, queries and answers (packages/client).
 */
export const route = <const S extends RouteSpec>(spec: S & { params: { [K in PathParamNames<S['path']>]: string } }): S => spec;

/** The base path of each area, relative to where agentrun is mounted. */
export const AREA_BASE: Record<RouteArea, string> = { api: '/api/v1', webhooks: '/webhooks', health: '' };

/** The full path template of a route, relative to the mount point. */
export const fullPath = (spec: RouteSpec): string => `${AREA_BASE[spec.area]}${spec.path}`;
