import type { Authenticate } from '../auth/api-keys.js';
import type { Principal } from '../auth/principal.js';
import { AgentRunError, isAgentRunError } from '../errors.js';
import type { Ingress } from '../ingress/pipeline.js';
import { allows } from '../keys/scopes.js';
import type { Logger } from '../logging/logger.js';
import { logRequest, type RequestLine } from '../logging/request-line.js';
import { requestLineLoggerOf, trackRequestLog } from '../logging/request-log.js';
import { AREA_BASE, type RouteArea } from '../routes/route.js';
import { routeScope } from '../routes/scopes.js';
import { ROUTES } from '../routes/table.js';
import type { Store } from '../store/store.js';
import type { RequestTelemetry } from '../telemetry/request-span.js';
import { everyMs } from '../util/throttle.js';
import { finishResponse, requestIdOf } from './finish-response.js';
import type { Mountable } from './mountable.js';
import type { ApiContext, OperationHandlers, PublicContext } from './operation.js';
import { pathnameOf } from './request-path.js';
import { problemResponse } from './responses.js';
import { createRouter, decodeParams, methodNotAllowed } from './router.js';

export interface HttpSurfaceOptions {
  /** A handler for every operation of the route table (the type requires each one). */
  operations: OperationHandlers;
  authenticate: Authenticate;
  /** Only `isUnavailable`, to answer a store outage with a retryable 503. */
  store: Pick<Store, 'isUnavailable'>;
  onError: (error: unknown, request: Request | undefined, context?: { requestId: string }) => void;
  /** A span per API request (telemetry/request-span.ts); absent without an OpenTelemetry SDK. */
  telemetry?: RequestTelemetry | undefined;
  /** The host's logger: a line per request (logging/request-line.ts); else the adapter's, else console. */
  logger?: Logger;
}

export interface HttpSurface extends Mountable {
  /** The run API and the management API, under `/api/v1`. */
  readonly api: Mountable;
  /** The webhook ingress, under `/webhooks/`. */
  readonly ingress: Mountable;
  /** `GET /healthz` and `GET /readyz`, at the mount point. */
  readonly health: Mountable;
}

/** Seconds a client waits before retrying while the store is unreachable. */
const UNAVAILABLE_RETRY_AFTER_S = 5;
const STORE_UNAVAILABLE = new AgentRunError('unavailable', 'the database cannot be reached right now; retry shortly', {
  retryable: true,
  headers: { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_S) },
});

/** The dispatcher's view of an operation; each was type-checked against its route where it was written. */
type AnyOperation = (ctx: ApiContext | PublicContext, params: Record<string, string>) => Promise<Response>;

/** Whether a path (relative to the mount point) is in an area: the API owns its base too. */
const AREA_OWNS: Record<RouteArea, (pathname: string) => boolean> = {
  api: (p) => p === AREA_BASE.api || p.startsWith(`${AREA_BASE.api}/`),
  webhooks: (p) => p.startsWith(`${AREA_BASE.webhooks}/`),
  health: (p) => p === `${AREA_BASE.health}/healthz` || p === `${AREA_BASE.health}/readyz`,
};

/**
 * The whole HTTP surface on Web-standard `Request`/`Response`, dispatched by the route table
 * (routes/table.ts): match, authenticate as the route says, decode params, run its operation.
 * Every error is a problem+json answer; every answer carries `x-request-id`.
 */
export function createHttpSurface(options: HttpSurfaceOptions): HttpSurface {
  const { operations, authenticate, store, onError, telemetry } = options;
  const router = createRouter(ROUTES);
  const unavailableLogged = everyMs(10_000);

  const handle = async (request: Request, requestId: string, line: Partial<RequestLine> | undefined): Promise<Response> => {
    try {
      const pathname = pathnameOf(request.url);
      const match = router.match(request.method, pathname);
      if (line && match.kind === 'found') {
        line.operation = match.operation;
        line.params = match.params;
      }
      if (match.kind === 'not_found') {
        throw new AgentRunError('not_found', AREA_OWNS.webhooks(pathname) ? 'no such webhook' : `no route for ${pathname}`);
      }
      if (match.kind === 'method_not_allowed') throw methodNotAllowed(match.allow);
      const run = operations[match.operation] as AnyOperation;
      // The ingress authenticates by webhook (token, URL token or signature) and decodes its own
      // params: a bad encoding there is no such webhook (404), not a bad request.
      if (match.spec.auth === 'webhook') return await run(new OperationContext(request), match.params);
      const params = decodeParams(match.params);
      if (match.spec.auth === 'none') return await run(new OperationContext(request), params);
      // Credentials are checked before the body is read: unauthenticated senders cannot make us buffer.
      const principal = await authenticate(request);
      if (!principal) throw new AgentRunError('unauthorized', 'send a valid API key as "Authorization: Bearer <key>"');
      // Each route's scope (routes/scopes.ts), by the one decider (keys/scopes.ts).
      const scope = routeScope(match.operation);
      if (scope !== undefined && !allows(principal, scope)) throw new AgentRunError('forbidden', `this needs the ${scope} scope`);
      return await run(new OperationContext(request, principal) as ApiContext, params);
    } catch (error) {
      if (isAgentRunError(error)) return problemResponse(error);
      if (store.isUnavailable?.(error)) {
        // The store is down for now: a retryable 503, logged at most every 10 s (not per request).
        if (unavailableLogged.due(Date.now())) onError(error, request, { requestId });
        return problemResponse(STORE_UNAVAILABLE);
      }
      onError(error, request, { requestId });
      return problemResponse(new AgentRunError('internal_error', 'an unexpected error occurred', { retryable: true }));
    }
  };

  const serve = async (request: Request, outside?: (pathname: string) => boolean): Promise<Response> => {
    const requestId = requestIdOf(request);
    // The request's log line is gathered only when a logger will print it: the app's, or the one
    // an adapter attached and may print (logging/request-line.ts); the console prints no request lines.
    const logger = options.logger ?? requestLineLoggerOf(request);
    if (options.logger) trackRequestLog(request);
    const line: Partial<RequestLine> | undefined = logger ? {} : undefined;
    const started = logger ? performance.now() : 0;
    // A part served on its own (`fetch: agentrun.ingress.fetch`) answers nothing of another part.
    const pathname = outside ? pathnameOf(request.url) : '';
    const response = outside?.(pathname)
      ? problemResponse(new AgentRunError('not_found', `no route for ${pathname}`))
      : await (telemetry ? telemetry(request, requestId, () => handle(request, requestId, line)) : handle(request, requestId, line));
    if (logger) {
      logRequest(logger, request, {
        ...line,
        requestId,
        method: request.method,
        status: response.status,
        durationMs: performance.now() - started,
      });
    }
    return finishResponse(response, requestId, request.method === 'HEAD');
  };
  const fetch = (request: Request) => serve(request);
  const area = (name: RouteArea): Mountable => {
    const owns = AREA_OWNS[name];
    return { fetch: (request) => serve(request, (p) => !owns(p)), owns };
  };
  return {
    fetch,
    owns: (p) => AREA_OWNS.api(p) || AREA_OWNS.webhooks(p) || AREA_OWNS.health(p),
    api: area('api'),
    ingress: area('webhooks'),
    health: area('health'),
  };
}

/**
 * An operation's context whose `url` is parsed on first use: most operations never read it (the
 * ingress, every one without a query), and `new URL` per request is a cost of its own. A class,
 * so the getter lives on its prototype and a context costs one small object.
 */
class OperationContext {
  readonly request: Request;
  readonly principal: Principal | undefined;
  #url: URL | undefined;
  constructor(request: Request, principal?: Principal) {
    this.request = request;
    this.principal = principal;
  }
  get url(): URL {
    this.#url ??= new URL(this.request.url);
    return this.#url;
  }
}

/** The ingress as the route table's two webhook operations. */
export const ingressOperations = (ingress: Ingress): OperationHandlers<'deliverWebhook' | 'deliverWebhookWithToken'> => ({
  deliverWebhook: ({ request }, { uid }) => ingress(request, { uid }),
  deliverWebhookWithToken: ({ request }, { uid, token }) => ingress(request, { uid, token }),
});
