import { type Authenticate, apiKeyAuthenticator } from '../auth/api-keys.js';
import type { Principal } from '../auth/principal.js';
import { ControlService } from '../control/control-service.js';
import { createSecretCipher, missingCipher } from '../control/secret-cipher.js';
import { AgentRunError, invalidRequest, isAgentRunError } from '../errors.js';
import { type AgentRunEvents, createEvents } from '../events.js';
import { createIngress, DEFAULT_INGRESS_LIMITS, type IngressLimits } from '../ingress/pipeline.js';
import { REPEATABLE_QUERY_PARAMS } from '../models/requests.js';
import { DEFAULT_IDEMPOTENCY_TTL_MS, type WriteResult } from '../run/idempotency.js';
import { RunService } from '../run/run-service.js';
import type { Store } from '../store/store.js';
import { type Clock, systemClock } from '../util/clock.js';
import { everyMs } from '../util/throttle.js';
import { type HmacPort, nobleSha256, type Sha256Port } from '../verify/crypto.js';
import { builtinVerifiers, createVerifierRegistry, type VerifierRegistry } from '../verify/registry.js';
import { parseJsonBody, readBodyLimited } from './body.js';
import { addControlRoutes } from './control-routes.js';
import { finishResponse, requestIdOf } from './finish-response.js';
import { checkHandlerOptions } from './handler-options.js';
import { withKey } from './idempotency-key.js';
import { idempotentWrites } from './idempotent-write.js';
import { queryObject } from './query.js';
import { jsonResponse, problemResponse } from './responses.js';
import { methodNotAllowed, Router } from './router.js';
import { textResponse } from './text-response.js';

export interface AgentRunHandlerOptions {
  store: Store;
  /** Resolve the caller; defaults to API keys in the store (`Authorization: Bearer <key>`). */
  authenticate?: Authenticate;
  /** Share one emitter with a worker or the host app; one is created otherwise. */
  events?: AgentRunEvents;
  clock?: Clock;
  /** Largest run API request body, in bytes. Default 40 MiB (five 5 MiB attachments in base64). */
  maxBodyBytes?: number;
  /** How long an `Idempotency-Key` is remembered. Default 24 h. */
  idempotencyTtlMs?: number;
  /** Claims allowed before an expired lease ends a run in `ERROR`. Default 3. */
  maxAttempts?: number;
  /**
   * The 32-byte key that seals team secrets (AES-256-GCM): base64, 64 hex digits, or bytes. Without
   * it, the management operations that store a secret answer 503 and say why.
   */
  secretKey?: string | Uint8Array;
  /** Base of webhook ingress URLs, e.g. `https://hooks.example.com`. Default: the request's origin. */
  webhookBaseUrl?: string;
  /** Default 20. */
  maxWebhooksPerFactory?: number;
  /**
   * HMAC for signature webhooks. Default: portable @noble/hashes; on Node pass `nodeHmac` from
   * `@agentrun/node` (about 11x faster on 256 KB bodies).
   */
  hmac?: HmacPort;
  /**
   * SHA-256 for delivery identities hashed from the body. Default: portable @noble/hashes; on Node
   * pass `nodeSha256` from `@agentrun/node`.
   */
  sha256?: Sha256Port;
  /** Verifiers by scheme; default: the built-in schemes of contract §7 on `hmac`. */
  verifiers?: VerifierRegistry;
  /** Ingress limits; defaults: 256 KB bodies, 60 deliveries and 20 failed authentications a minute per webhook. */
  ingressLimits?: Partial<IngressLimits>;
  /**
   * Called with every unexpected error: those answered as a bare 500 (with their request) and
   * those thrown by event listeners (without one). `context.requestId` is the `x-request-id` the
   * 500 answer carries, so a user's report can be matched to the log. Default: `console.error`.
   */
  onError?: (error: unknown, request: Request | undefined, context?: { requestId: string }) => void;
}

/** A fetch-style handler with what adapters and hosts need to know about it. */
export interface AgentRunHandler {
  (request: Request): Promise<Response>;
  /** Whether `pathname` (relative to where the handler is mounted) belongs to agentrun. */
  owns(pathname: string): boolean;
  readonly service: RunService;
  readonly control: ControlService;
  readonly events: AgentRunEvents;
}

export const API_BASE = '/api/v1';
export const WEBHOOKS_BASE = '/webhooks/';
const DEFAULT_MAX_BODY = 40 * 1024 * 1024;

interface Ctx {
  request: Request;
  url: URL;
  principal: Principal;
}

/**
 * The whole HTTP surface of agentrun on Web-standard `Request`/`Response`. Routes are relative to
 * the mount point: `/api/v1/...` for the run API. Every error is a problem+json response.
 */
export function createAgentRunHandler(options: AgentRunHandlerOptions): AgentRunHandler {
  checkHandlerOptions(options);
  const events = options.events ?? createEvents();
  const onError =
    options.onError ??
    ((error: unknown, _request?: Request, context?: { requestId: string }) =>
      console.error(`[agentrun] unexpected error${context ? ` (request ${context.requestId})` : ''}`, error));
  const service = new RunService({
    store: options.store,
    events,
    onError: (error) => onError(error, undefined),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.idempotencyTtlMs !== undefined ? { idempotencyTtlMs: options.idempotencyTtlMs } : {}),
    ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
  });
  const cipher = options.secretKey === undefined ? missingCipher : createSecretCipher(options.secretKey);
  const control = new ControlService({
    store: options.store,
    cipher,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.webhookBaseUrl !== undefined ? { webhookBaseUrl: options.webhookBaseUrl } : {}),
    ...(options.maxWebhooksPerFactory !== undefined ? { maxWebhooksPerFactory: options.maxWebhooksPerFactory } : {}),
  });
  const ingress = createIngress({
    store: options.store,
    cipher,
    verifiers: options.verifiers ?? createVerifierRegistry(builtinVerifiers(options.hmac)),
    sha256: options.sha256 ?? nobleSha256,
    events,
    clock: options.clock ?? systemClock,
    limits: { ...DEFAULT_INGRESS_LIMITS, ...options.ingressLimits },
    onError: (error) => onError(error, undefined),
  });
  const authenticate = options.authenticate ?? apiKeyAuthenticator(options.store.apiKeys);
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;

  const readJson = async (request: Request) => parseJsonBody(await readBodyLimited(request, maxBody));
  const requireBody = (body: unknown, what: string) => {
    if (body === undefined) throw invalidRequest(`a JSON ${what} body is required`);
    return body;
  };
  const written = <T>(result: WriteResult<T>) =>
    jsonResponse(result.body, result.status, result.replayed ? { 'idempotent-replayed': 'true' } : {});

  const router = new Router<Ctx>()
    .on('POST', `${API_BASE}/agent/run`, createRun)
    .on('POST', `${API_BASE}/agent/runs`, createRun)
    .on('GET', `${API_BASE}/agent/runs`, async ({ principal, url }) =>
      jsonResponse(await service.list(principal, queryObject(url, REPEATABLE_QUERY_PARAMS))),
    )
    .on('GET', `${API_BASE}/agent/runs/:runId`, async ({ principal }, p) => jsonResponse(await service.get(principal, p.runId as string)))
    .on('POST', `${API_BASE}/agent/runs/:runId/followups`, async ({ principal, request }, p) => {
      const body = requireBody(await readJson(request), 'follow-up');
      return written(await service.followup(principal, p.runId as string, body, withKey(request, `followup ${p.runId}`, body)));
    })
    .on('POST', `${API_BASE}/agent/runs/:runId/cancel`, async ({ principal, request }, p) => {
      const body = await readJson(request);
      if (body !== undefined && !(isPlainObject(body) && Object.keys(body).length === 0)) {
        throw invalidRequest('cancel takes no body (or an empty JSON object)');
      }
      // The bare ID as text/plain (contract §1): both published clients hand it back unchanged.
      const result = await service.cancel(principal, p.runId as string, withKey(request, `cancel ${p.runId}`, body));
      return textResponse(result.body, result.status, {
        'content-type': 'text/plain; charset=utf-8',
        ...(result.replayed ? { 'idempotent-replayed': 'true' } : {}),
      });
    })
    .on('GET', `${API_BASE}/agent/runs/:runId/attachments/:fileName`, async ({ principal }, p) => {
      const file = await service.getAttachment(principal, p.runId as string, p.fileName as string);
      return new Response(file.data as Uint8Array<ArrayBuffer>, {
        headers: {
          'content-type': file.mimeType,
          'content-length': String(file.data.byteLength),
          'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(file.fileName)}`,
          'x-content-type-options': 'nosniff',
        },
      });
    });

  const idempotent = idempotentWrites({
    store: options.store.idempotency,
    cipher,
    clock: options.clock ?? systemClock,
    ttlMs: options.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS,
  });
  addControlRoutes(router, API_BASE, control, async (request) => requireBody(await readJson(request), 'request'), readJson, idempotent);

  async function createRun({ principal, request }: Ctx): Promise<Response> {
    const body = requireBody(await readJson(request), 'run request');
    return written(await service.create(principal, body, { source: 'API', ...withKey(request, 'create run', body) }));
  }

  const unavailableLogged = everyMs(10_000);
  const handle = async (request: Request, requestId: string): Promise<Response> => {
    try {
      const url = new URL(request.url);
      // The ingress authenticates by webhook (token, URL token or signature), never by API key.
      if (url.pathname.startsWith(WEBHOOKS_BASE)) return await ingress(request, url.pathname);
      const match = router.match(request.method, url.pathname);
      if (match.kind === 'not_found') throw new AgentRunError('not_found', `no route for ${url.pathname}`);
      if (match.kind === 'method_not_allowed') throw methodNotAllowed(match.allow);
      // Credentials are checked before the body is read: unauthenticated senders cannot make us buffer.
      const principal = await authenticate(request);
      if (!principal) {
        throw new AgentRunError('unauthorized', 'send a valid API key as "Authorization: Bearer <key>"');
      }
      return await match.handler({ request, url, principal }, match.params);
    } catch (error) {
      if (isAgentRunError(error)) return problemResponse(error);
      if (options.store.isUnavailable?.(error)) {
        // The store is down for now: a retryable 503, logged at most every 10 s (not per request).
        if (unavailableLogged.due(Date.now())) onError(error, request, { requestId });
        return problemResponse(STORE_UNAVAILABLE);
      }
      onError(error, request, { requestId });
      return problemResponse(new AgentRunError('internal_error', 'an unexpected error occurred', { retryable: true }));
    }
  };

  const handler = async (request: Request): Promise<Response> => {
    const requestId = requestIdOf(request);
    return finishResponse(await handle(request, requestId), requestId, request.method === 'HEAD');
  };

  return Object.assign(handler, {
    owns: (pathname: string) => pathname === API_BASE || pathname.startsWith(`${API_BASE}/`) || pathname.startsWith(WEBHOOKS_BASE),
    service,
    control,
    events,
  });
}

/** Seconds a client waits before retrying while the store is unreachable. */
export const UNAVAILABLE_RETRY_AFTER_S = 5;
const STORE_UNAVAILABLE = new AgentRunError('unavailable', 'the database cannot be reached right now; retry shortly', {
  retryable: true,
  headers: { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_S) },
});

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
