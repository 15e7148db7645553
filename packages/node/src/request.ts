import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { AgentRunError } from '@agentrun/core';
import { requestBodyStream } from './body-stream.js';
import { declaredLength, declaresBody, toWebHeaders } from './headers.js';
import { clientGone } from './signals.js';

export interface ToWebRequestOptions {
  /** Absolute URL of the request; its path is relative to where agentrun is mounted. */
  url: string;
  /** Error the body stream once more than this many bytes arrive (answered 413 by core). */
  maxBodyBytes?: number;
  /** Also abort the request on this signal; pass `disconnectSignal(res)` to follow the client. */
  signal?: AbortSignal;
  /** Read the body from this stream instead of `req` (a framework may hand over a wrapped one). */
  body?: Readable;
}

// Fetch refuses these methods outright; answering 405 beats a TypeError turning into a 500.
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

/**
 * A Web `Request` over a Node request, without buffering: the body is a pull-based stream of
 * `req` (see `requestBodyStream`). The signal aborts when the client disconnects mid-body, and
 * on `options.signal`, which is how callers holding the response extend that to the whole exchange.
 */
export function toWebRequest(req: IncomingMessage, options: ToWebRequestOptions): Request {
  const method = (req.method ?? 'GET').toUpperCase();
  if (FORBIDDEN_METHODS.has(method)) throw new AgentRunError('method_not_allowed', `${method} is not supported`);

  const controller = new AbortController();
  const abortIfIncomplete = () => {
    if (!req.complete) controller.abort(clientGone());
  };
  if (req.destroyed) abortIfIncomplete();
  else req.once('close', abortIfIncomplete);
  const signal = options.signal ? AbortSignal.any([controller.signal, options.signal]) : controller.signal;

  const init: RequestInit & { duplex?: 'half' } = { method, headers: toWebHeaders(req), signal };
  if (method !== 'GET' && method !== 'HEAD' && declaresBody(req)) {
    const length = declaredLength(req);
    init.body = requestBodyStream(options.body ?? req, {
      ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
      ...(length !== undefined ? { declaredLength: length } : {}),
    });
    // Required by fetch for a streaming body: the request is sent (here: read) before any response.
    init.duplex = 'half';
  }
  return new Request(options.url, init);
}
