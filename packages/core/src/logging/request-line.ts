import type { Logger } from './logger.js';
import { logFieldsOf } from './request-log.js';

/**
 * The one line logged per request the surface answers (docs/operations.md, "Logging"). Only
 * identifiers: the path is never logged (a URL-token webhook's path holds its token), nor any
 * header, query or body.
 */
export interface RequestLine {
  requestId: string;
  method: string;
  /** The route table's operation ID, when a route matched. */
  operation?: string;
  /** The route's params, as sent; only `uid` and `runId` are logged. */
  params?: Record<string, string>;
  status: number;
  durationMs: number;
}

/** What an ingress answer means, by its status (docs/webhooks.md, the outcomes). */
const INGRESS_OUTCOME: Record<number, string> = {
  202: 'accepted',
  400: 'rejected_invalid',
  401: 'rejected_auth',
  404: 'no_such_webhook',
  413: 'rejected_too_large',
  429: 'rate_limited',
  503: 'unavailable',
};

const INGRESS = new Set(['deliverWebhook', 'deliverWebhookWithToken']);
const PROBES = new Set(['getHealth', 'getReadiness']);

/**
 * Log the request's line to the app's logger or the adapter's. The surface calls this only when
 * there is one: without, the line would go to the console, which prints no request line (info
 * and debug), so none is gathered or built.
 */
export function logRequest(logger: Logger, request: Request, line: RequestLine): void {
  const fields: Record<string, string | number> = {
    request_id: line.requestId,
    method: line.method,
    status: line.status,
    duration_ms: Math.round(line.durationMs * 10) / 10,
  };
  if (line.operation) fields.operation = line.operation;
  const uid = line.params?.uid;
  const runId = line.params?.runId;
  if (line.operation && INGRESS.has(line.operation)) {
    if (uid !== undefined) fields.webhook_uid = safeId(uid);
    fields.outcome = INGRESS_OUTCOME[line.status] ?? `status_${line.status}`;
  }
  if (runId !== undefined) fields.run_id = safeId(runId);
  Object.assign(fields, logFieldsOf(request));
  // Probes come every few seconds: their lines are debug. A failure's error itself goes to onError
  // (at error, throttled during a store outage), so its request line stays at info.
  const level = line.operation && PROBES.has(line.operation) ? 'debug' : 'info';
  logger[level](fields, 'request');
}

/** An identifier from a URL, bounded and printable (it is the caller's text). */
const safeId = (value: string) => value.replace(/[^\x21-\x7e]/g, '?').slice(0, 100);
