/**
 * The one error type of agentrun. Every failure a caller can act on carries a stable snake_case
 * `code`; the HTTP layer maps it to an RFC 9457 problem response (docs/run-api.md, "Errors").
 */

/** Stable error codes and the HTTP status each one answers with. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  idempotency_conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  headers_too_large: 431,
  rate_limited: 429,
  internal_error: 500,
  not_implemented: 501,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

const TITLES: Record<ErrorCode, string> = {
  invalid_request: 'Invalid request',
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  request_timeout: 'Request timeout',
  conflict: 'Conflict',
  idempotency_conflict: 'Idempotency key reused with a different request',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  headers_too_large: 'Request header fields too large',
  rate_limited: 'Too many requests',
  internal_error: 'Internal error',
  not_implemented: 'Not implemented',
  unavailable: 'Service unavailable',
};

export interface AgentRunErrorOptions {
  /** Whether retrying the same request can succeed. */
  retryable?: boolean;
  /** Extra response headers (for example `Retry-After` or `Allow`). */
  headers?: Record<string, string>;
  /** Every problem found, each at its path, when there are several (answered as `errors`). */
  errors?: readonly FieldError[];
  cause?: unknown;
}

/** One problem of a request, at its dot path (`webhooks.2.secret_name`): the problem document's `errors`. */
export interface FieldError {
  path: string;
  detail: string;
}

export class AgentRunError extends Error {
  override readonly name = 'AgentRunError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly title: string;
  readonly retryable: boolean | undefined;
  readonly headers: Record<string, string>;
  readonly errors: readonly FieldError[] | undefined;

  constructor(code: ErrorCode, detail: string, options: AgentRunErrorOptions = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.title = TITLES[code];
    this.retryable = options.retryable;
    this.headers = options.headers ?? {};
    this.errors = options.errors;
  }

  /** The `detail` member of the problem document. */
  get detail(): string {
    return this.message;
  }
}

export const isAgentRunError = (value: unknown): value is AgentRunError => value instanceof AgentRunError;

// Short constructors keep call sites readable: `throw notFound('run r_1 not found')`.
export const invalidRequest = (detail: string) => new AgentRunError('invalid_request', detail);
export const notFound = (detail: string) => new AgentRunError('not_found', detail);
export const conflict = (detail: string, retryable = false) => new AgentRunError('conflict', detail, { retryable });
