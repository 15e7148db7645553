import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger, Mountable } from '@agentrun/core';
import { attachRequestLogger } from '@agentrun/core/internal';
import { requestOrigin, serveNodeRequest, splitTarget } from '@agentrun/node';

export interface AgentrunExpressOptions {
  /** Error request bodies past this many bytes while they stream in (413). Core's own limit still applies. */
  maxBodyBytes?: number;
}

/** What the middleware reads of an Express request; typed structurally so `@types/express` is not required. */
export type ExpressRequestLike = IncomingMessage & { protocol?: string; baseUrl?: string; log?: unknown };

export type AgentrunMiddleware = (req: ExpressRequestLike, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * Express middleware serving agentrun: `app.use('/agents', agentrunExpress(agentrun))` or
 * `app.use(agentrunExpress(agentrun))`, for an agentrun from `createAgentRun` or any part of it
 * (`agentrun.api`, `agentrun.ingress`): it needs only `fetch` and `owns`. Paths agentrun does not own go to `next()`, so host routes
 * under the same prefix keep working. Mount it before any body parser: it needs the raw body.
 */
export function agentrunExpress(handler: Mountable, options: AgentrunExpressOptions = {}): AgentrunMiddleware {
  return (req, res, next) => {
    // Express has already stripped the mount prefix from req.url.
    const { pathname, search } = splitTarget(req.url);
    if (!handler.owns(pathname)) return next();
    // Express's protocol honours its `trust proxy` setting. (Its `req.host` is deprecated in
    // Express 4 and drops the port there, so the host comes from the Host header.)
    const origin = requestOrigin(req, typeof req.protocol === 'string' ? { protocol: req.protocol } : {});
    // pino-http's req.log, when the host uses it, as Fastify's request.log (docs/operations.md, "Logging").
    const log = isLogger(req.log) ? req.log : undefined;
    const serve = (request: Request) => {
      if (log) attachRequestLogger(request, log);
      return handler.fetch(request);
    };
    serveNodeRequest(serve, req, res, {
      url: origin + pathname + search,
      // Express strips the mount prefix from req.url and keeps it in req.baseUrl: printed URLs need it.
      ...(typeof req.baseUrl === 'string' && req.baseUrl !== '' ? { mountPath: req.baseUrl } : {}),
      ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
    }).catch(next);
  };
}

const isLogger = (value: unknown): value is Logger =>
  typeof value === 'object' &&
  value !== null &&
  ['error', 'warn', 'info', 'debug'].every((level) => typeof (value as Record<string, unknown>)[level] === 'function');
