import type { AgentRunError } from '../errors.js';
import { textResponse } from './text-response.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

export const jsonResponse = (body: unknown, status = 200, headers: Record<string, string> = {}): Response =>
  jsonTextResponse(JSON.stringify(body), status, headers);

/** A JSON answer already serialized (a page of run events is built as its text, run/event-page.ts). */
export const jsonTextResponse = (json: string, status = 200, headers: Record<string, string> = {}): Response =>
  textResponse(json, status, { 'content-type': JSON_TYPE, ...headers });

/**
 * RFC 9457 problem details (docs/run-api.md, "Errors"):
 * `{ type, title, status, error, detail?, retryable?, errors? }`.
 */
export function problemResponse(error: AgentRunError): Response {
  const body: Record<string, unknown> = {
    type: `urn:agentrun:error:${error.code}`,
    title: error.title,
    status: error.status,
    error: error.code,
    detail: error.detail,
  };
  if (error.retryable !== undefined) body.retryable = error.retryable;
  if (error.errors !== undefined) body.errors = error.errors;
  const headers: Record<string, string> = { 'content-type': PROBLEM_TYPE, ...error.headers };
  // Clients (the published SDK among them) retry 409 by default; a state conflict will not go away.
  if (error.status === 409 && error.retryable !== true) headers['x-should-retry'] = 'false';
  if (error.status === 401) headers['www-authenticate'] ??= 'Bearer';
  return textResponse(JSON.stringify(body), error.status, headers);
}
