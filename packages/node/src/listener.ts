import type { IncomingMessage, ServerResponse } from 'node:http';
import { AgentRunError, type Mountable } from '@agentrun/core';
import { problemResponse } from '@agentrun/core/internal';
import { writeWebResponse } from './response.js';
import { bridgeAnswer, serveNodeRequest } from './serve.js';
import { normalizeBasePath, requestOrigin, splitTarget, stripBasePath } from './url.js';

export interface NodeListenerOptions {
  /** Where agentrun is mounted (e.g. `/agents`); the handler sees paths relative to it. Default: the root. */
  basePath?: string;
  /** Error request bodies past this many bytes while they stream in (413). */
  maxBodyBytes?: number;
  /** Answers requests agentrun does not own. Default: a 404 problem. */
  notFound?: (req: IncomingMessage, res: ServerResponse) => void;
}

/** A request listener for `http.createServer` (or `https`) serving agentrun under `basePath`. */
export function createNodeListener(
  handler: Mountable,
  options: NodeListenerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const basePath = normalizeBasePath(options.basePath);
  const notFound = options.notFound ?? defaultNotFound;
  return (req, res) => {
    const { pathname, search } = splitTarget(req.url);
    const relative = stripBasePath(pathname, basePath);
    if (relative === undefined || !handler.owns(relative)) return notFound(req, res);
    const url = requestOrigin(req) + relative + search;
    serveNodeRequest((request) => handler.fetch(request), req, res, {
      url,
      ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
      ...(relative.length < pathname.length ? { mountPath: pathname.slice(0, pathname.length - relative.length) } : {}),
    }).catch((error: unknown) => bridgeFailed(res, error, req));
  };
}

function defaultNotFound(req: IncomingMessage, res: ServerResponse): void {
  const { pathname } = splitTarget(req.url);
  writeWebResponse(res, bridgeAnswer(problemResponse(new AgentRunError('not_found', `no route for ${pathname}`)), req)).catch(
    (error: unknown) => bridgeFailed(res, error, req),
  );
}

/** No framework to hand the error to: log it and answer 500 if the response has not started. */
function bridgeFailed(res: ServerResponse, error: unknown, req: IncomingMessage): void {
  const failure = bridgeAnswer(
    problemResponse(new AgentRunError('internal_error', 'an unexpected error occurred', { retryable: true })),
    req,
  );
  // The id the 500 carries, so a user's report can be matched to this line.
  console.error(`[agentrun] the Node bridge failed (request ${failure.headers.get('x-request-id')})`, error);
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  writeWebResponse(res, failure).catch(() => res.destroy());
}
