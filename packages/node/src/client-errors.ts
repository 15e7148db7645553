import { type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { AgentRunError, type ErrorCode } from '@agentrun/core';
import { bufferedResponse, finishResponse, problemResponse, requestIdFrom } from '@agentrun/core/internal';

/**
 * Requests Node's HTTP parser refuses never reach a request listener: a header section past
 * `--max-http-header-size` (16 KiB), a header value with a control character, a method it does
 * not know (`FOO`), a request that did not arrive in time. Node answers them itself, on the
 * socket, with a bare status line. `handleClientErrors` answers them as agentrun answers every
 * error (../shared/spec/contract.md §2, docs/embedding.md "Requests Node refuses"): a problem
 * document with an `x-request-id`, new since no header of the request can be trusted.
 */

/** What a parser error is answered with, by Node's `err.code`; anything else is a 400. */
const ANSWERS: Readonly<Record<string, { code: ErrorCode; detail: string }>> = {
  HPE_HEADER_OVERFLOW: {
    code: 'headers_too_large',
    detail: "the request's header section is larger than this server takes (Node's --max-http-header-size, 16 KiB by default)",
  },
  // RFC 9110 §9.1: a method the server does not recognise is a 501.
  HPE_INVALID_METHOD: { code: 'not_implemented', detail: 'the request method is not one this server knows' },
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'request_timeout', detail: 'the request did not arrive in time' },
};

/** The answer to a request the parser refused with `error`: status line, headers and body, as bytes for the socket. */
function clientErrorAnswer(error: { code?: string; reason?: string }): string {
  const known = error.code !== undefined ? ANSWERS[error.code] : undefined;
  const refusal = known ?? {
    code: 'invalid_request' as const,
    detail: `the request is not valid HTTP/1.1${error.reason ? ` (${error.reason.replace(/[^\x20-\x7e]/g, '')})` : ''}`,
  };
  const response = finishResponse(problemResponse(new AgentRunError(refusal.code, refusal.detail)), requestIdFrom(undefined), false);
  // Core's problem answers are always buffered text (http/responses.ts).
  const { status, headers, body } = bufferedResponse(response) as NonNullable<ReturnType<typeof bufferedResponse>>;
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  lines.push(`content-length: ${Buffer.byteLength(body)}`, 'connection: close');
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/**
 * Answer one request a parser refused, on its socket (see above): a `clientError` listener, also
 * fit for Fastify's `clientErrorHandler` option. The socket is answered only while it is writable
 * and no response of an earlier request on it (keep-alive) has started, as Node's own default
 * does; otherwise it is closed, unless another handler already ended it.
 */
export function answerClientError(error: NodeJS.ErrnoException & { reason?: string }, socket: Duplex): void {
  // Node's own default looks at the response in progress the same way (lib/_http_server.js).
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    if (!socket.writableEnded) socket.destroy();
    return;
  }
  socket.end(clientErrorAnswer(error));
}

/** Answer every request `server`'s parser refuses with a problem document (`answerClientError`). */
export function handleClientErrors(server: Server): void {
  server.on('clientError', answerClientError);
}
