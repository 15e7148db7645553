import type { Logger } from './logger.js';

/**
 * What a request's log line carries beyond the surface's own fields: the fields the code that
 * handled it added (the ingress's `delivery_id`), and the logger an adapter attached (Fastify's
 * `request.log`). Kept beside the Web `Request` in a WeakMap, so no signature changes to carry
 * them and nothing outlives the request.
 */
interface RequestLog {
  logger?: Logger;
  fields: Record<string, string | number>;
}

const LOGS = new WeakMap<Request, RequestLog>();

const logOf = (request: Request): RequestLog => {
  let log = LOGS.get(request);
  if (!log) {
    log = { fields: {} };
    LOGS.set(request, log);
  }
  return log;
};

/** An adapter's per-request logger (Fastify's `request.log`); `createAgentRun`'s `logger` option wins over it. */
export function attachRequestLogger(request: Request, logger: Logger): void {
  logOf(request).logger = logger;
}

export const requestLoggerOf = (request: Request | undefined): Logger | undefined => (request ? LOGS.get(request)?.logger : undefined);

/**
 * The request will have a log line: the app has a logger of its own (the surface calls this as
 * a request comes in; an adapter's logger does it by `attachRequestLogger`). Without either,
 * the line would go to the console, which prints no `info`, so nothing is gathered for it: on
 * the ingress, gathering cost a tenth of a delivery (`npm run bench -- ingress-telemetry`).
 */
export function trackRequestLog(request: Request): void {
  logOf(request);
}

/**
 * Add identifiers to the request's log line (`delivery_id`), if it will have one
 * (`trackRequestLog`); `fields` is called only then. Only identifiers and outcomes: never a
 * secret, token, signature or body (docs/operations.md, "Logging").
 */
export function addLogFields(request: Request, fields: () => Record<string, string | number>): void {
  const log = LOGS.get(request);
  if (log) Object.assign(log.fields, fields());
}

export const logFieldsOf = (request: Request): Record<string, string | number> => LOGS.get(request)?.fields ?? {};
