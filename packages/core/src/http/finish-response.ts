import { newId } from '../util/ids.js';
import { bufferedResponse, textResponse } from './text-response.js';

/**
 * What every response of agentrun gets on its way out: an `x-request-id` (the caller's, when it
 * sent a usable one, else a new one) so a user can quote it, also inside problem documents; and,
 * for `HEAD`, the headers of the `GET` answer without its body (RFC 9110 §9.3.2). One place for
 * both, so the run API, the management API, the ingress and every error answer alike.
 */

/** Echoed when it is 1–200 visible ASCII characters; anything else is replaced, never refused. */
const USABLE_REQUEST_ID = /^[\x21-\x7e]{1,200}$/;

export const REQUEST_ID_HEADER = 'x-request-id';

/** The id for an incoming `x-request-id` value: that value when usable, else a new one. */
export const requestIdFrom = (incoming: string | null | undefined): string =>
  typeof incoming === 'string' && USABLE_REQUEST_ID.test(incoming) ? incoming : newId();

/** The request's id: the incoming `x-request-id` when usable, else a new one. */
export const requestIdOf = (request: Request): string => requestIdFrom(request.headers.get(REQUEST_ID_HEADER));

const PROBLEM = 'application/problem+json';
/** The response with `x-request-id` (and `request_id` in a problem body); body-less for `HEAD`. */
export function finishResponse(response: Response, requestId: string, head: boolean): Response {
  const buffered = bufferedResponse(response);
  if (buffered !== undefined) {
    let body = buffered.body;
    const type = buffered.headers['content-type'];
    // Problem documents are JSON objects core wrote itself: the id goes in as their last member.
    if (type?.startsWith(PROBLEM) && body.endsWith('}')) body = `${body.slice(0, -1)},"request_id":${JSON.stringify(requestId)}}`;
    const headers: Record<string, string> = { ...buffered.headers, [REQUEST_ID_HEADER]: requestId };
    if (!head) return textResponse(body, buffered.status, headers);
    // HEAD is rare: encoding the body once to measure it is fine here.
    headers['content-length'] = String(new TextEncoder().encode(body).byteLength);
    return textResponse('', buffered.status, headers);
  }
  const headers = new Headers(response.headers);
  headers.set(REQUEST_ID_HEADER, requestId);
  return new Response(head ? null : response.body, { status: response.status, statusText: response.statusText, headers });
}
