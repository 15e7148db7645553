import type { Logger } from './logger.js';

/**
 * What a request's log line carries beyond the surface's own fields: the fields the code that
 * handled it added (the ingress's `delivery_id`), and the logger an adapter attached (Fastify's
 * `request.log`). Kept on the Web `Request` under a private symbol, so no signature changes to
 * carry them and nothing outlives the request; a WeakMap entry per request cost about as much as
 * the rest of the request's logging (bench/README.md, "What was tried"). A request that
 * cannot take a property (frozen) keeps its log in a WeakMap instead.
 */
interface RequestLog {
  logger?: Logger;
  /** False when the attached logger is known to print no `info` line: no request line is gathered for it. */
  lines?: boolean;
  fields: Record<string, string | number>;
}

const REQUEST_LOG = Symbol('agentrun.requestLog');
type Logged = Request & { [REQUEST_LOG]?: RequestLog };
const SEALED = new WeakMap<Request, RequestLog>();

const existingLog = (request: Request): RequestLog | undefined =>
  (request as Logged)[REQUEST_LOG] ?? (Object.isExtensible(request) ? undefined : SEALED.get(request));

const logOf = (request: Request): RequestLog => {
  let log = existingLog(request);
  if (!log) {
    log = { fields: {} };
    if (Object.isExtensible(request)) (request as Logged)[REQUEST_LOG] = log;
    else SEALED.set(request, log);
  }
  return log;
};

/**
 * An adapter's per-request logger (Fastify's `request.log`); `createAgentRun`'s `logger` option
 * wins over it. `lines: false` says the adapter knows it prints no `info` (Fastify without a
 * logger, or pino above `info`): errors still go to it, but no request line is gathered, which
 * would cost a delivery several microseconds for nothing (bench/README.md, "What was tried").
 */
export function attachRequestLogger(request: Request, logger: Logger, { lines = true }: { lines?: boolean } = {}): void {
  const log = logOf(request);
  log.logger = logger;
  if (!lines) log.lines = false;
}

/** The logger this request's errors go to, if an adapter attached one. */
export const requestLoggerOf = (request: Request | undefined): Logger | undefined => (request ? existingLog(request)?.logger : undefined);

/** The logger that prints this request's line, if an adapter attached one that may print it. */
export const requestLineLoggerOf = (request: Request): Logger | undefined => {
  const log = existingLog(request);
  return log?.lines === false ? undefined : log?.logger;
};

/**
 * The request will have a log line: the app has a logger of its own (the surface calls this as
 * a request comes in; an adapter's logger does it by `attachRequestLogger`). Without either,
 * the line would go to the console, which prints no `info`, so nothing is gathered for it: on
 * the ingress, gathering cost a tenth of a delivery (`npm run bench -- ingress-telemetry`).
 */
export function trackRequestLog(request: Request): void {
  // The app's logger prints the line, whatever an adapter said of its own.
  logOf(request).lines = true;
}

/**
 * Add identifiers to the request's log line (`delivery_id`), if it will have one
 * (`trackRequestLog`); `fields` is called only then. Only identifiers and outcomes: never a
 * secret, token, signature or body (docs/operations.md, "Logging").
 */
export function addLogFields(request: Request, fields: () => Record<string, string | number>): void {
  const log = existingLog(request);
  if (log && log.lines !== false) Object.assign(log.fields, fields());
}

export const logFieldsOf = (request: Request): Record<string, string | number> => existingLog(request)?.fields ?? {};
