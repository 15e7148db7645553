import type { IncomingMessage, ServerResponse } from 'node:http';
import { isAgentRunError } from '@agentrun/core';
import { finishResponse, problemResponse, REQUEST_ID_HEADER, requestIdFrom } from '@agentrun/core/internal';
import { bodyAlreadyConsumed, bodyConsumedResponse } from './consumed-body.js';
import { isForbiddenMethodError, toWebRequest } from './request.js';
import { writeWebResponse } from './response.js';

/** Anything callable like the agentrun handler. */
export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * Run `handler` on the request `makeRequest` builds. A refusal by the bridge itself (an
 * `AgentRunError`: building the request, or a handler needing a real `Request` of a method
 * fetch cannot represent) is answered as a problem; anything else is a real failure and is thrown
 * to the caller's framework.
 */
export async function respond(handler: FetchHandler, makeRequest: () => Request, incoming?: IncomingMessage): Promise<Response> {
  let request: Request;
  try {
    request = makeRequest();
  } catch (error) {
    if (isAgentRunError(error)) return bridgeAnswer(problemResponse(error), incoming);
    throw error;
  }
  try {
    return await handler(request);
  } catch (error) {
    if (isForbiddenMethodError(error)) return bridgeAnswer(problemResponse(error), incoming);
    throw error;
  }
}

/**
 * An answer the bridge gives itself, finished as core finishes its own (docs/embedding.md): with
 * the caller's usable `x-request-id` or a new one, also in the problem body; no body for HEAD.
 */
export const bridgeAnswer = (response: Response, incoming: IncomingMessage | undefined): Response => {
  const header = incoming?.headers[REQUEST_ID_HEADER];
  return finishResponse(response, requestIdFrom(typeof header === 'string' ? header : undefined), incoming?.method === 'HEAD');
};

export interface ServeNodeRequestOptions {
  /** Absolute URL of the request; its path is relative to where agentrun is mounted. */
  url: string;
  maxBodyBytes?: number;
  /** The prefix the host mounted agentrun under (see `ToWebRequestOptions.mountPath`). */
  mountPath?: string;
}

/**
 * The whole bridge for one request, shared by the Node listener and the Express adapter: refuse
 * an already-consumed body, convert, call the handler, write its response.
 */
export async function serveNodeRequest(
  handler: FetchHandler,
  req: IncomingMessage,
  res: ServerResponse,
  options: ServeNodeRequestOptions,
): Promise<void> {
  const response = bodyAlreadyConsumed(req)
    ? bridgeAnswer(bodyConsumedResponse(), req)
    : await respond(
        handler,
        () =>
          toWebRequest(req, {
            url: options.url,
            response: res,
            ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
            ...(options.mountPath ? { mountPath: options.mountPath } : {}),
          }),
        req,
      );
  await writeWebResponse(res, response);
}
