import type { IncomingMessage } from 'node:http';
import { AgentRunError } from '@agentrun/core';
import { problemResponse } from '@agentrun/core/internal';
import { declaresBody } from './headers.js';

/**
 * Whether something read the request body before us, typically a host body parser such as
 * `express.json()` mounted ahead of agentrun. The bytes are gone then, and rebuilding them from a
 * parsed `req.body` would not be the body that was sent (nor what an idempotency fingerprint or a
 * webhook signature covers), so the bridge refuses instead.
 */
export function bodyAlreadyConsumed(req: IncomingMessage): boolean {
  // body-parser 1.x (Express 4) marks the requests it parsed.
  if ((req as IncomingMessage & { _body?: unknown })._body === true) return true;
  // 'data' was emitted or read() returned bytes: someone else has them.
  if (req.readableDidRead) return true;
  // Drained to its end without anyone seeing data only matters if there was data.
  return req.readableEnded && declaresBody(req);
}

/** The 500 problem answered when `bodyAlreadyConsumed` is true. */
export function bodyConsumedResponse(): Response {
  return problemResponse(
    new AgentRunError(
      'internal_error',
      'the request body was already read by another middleware (a body parser such as express.json() ran first); ' +
        'mount agentrun before any body parser so it receives the raw body',
      { retryable: false },
    ),
  );
}
