/**
 * The logger agentrun writes to (docs/operations.md, "Logging"): any pino-compatible object, so a
 * host hands over the logger it already ships (pino, a Fastify request's `request.log`, bunyan's
 * object-first style). Fields first, message second; agentrun never passes anything else.
 */
export interface Logger {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
  debug(fields: object, message: string): void;
}

/**
 * The default without a logger: errors and warnings as console lines, `[agentrun] message
 * {fields}`; info and debug (a line per request) are dropped, as a console has no levels to
 * filter them by.
 */
export const consoleLogger: Logger = {
  error: (fields, message) => console.error(`[agentrun] ${message}`, fields),
  warn: (fields, message) => console.warn(`[agentrun] ${message}`, fields),
  info: () => {},
  debug: () => {},
};

/**
 * The `onError` used when the host gives none: the error to the logger, at `error`, with the
 * request's id (as `err`, the key pino serializes errors under).
 */
export const logUnexpectedError =
  (logger: (request: Request | undefined) => Logger) =>
  (error: unknown, request: Request | undefined, context?: { requestId: string }): void =>
    logger(request).error(context ? { request_id: context.requestId, err: error } : { err: error }, 'unexpected error');
