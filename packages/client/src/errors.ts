/**
 * The client's errors: one class per status the API answers with, each carrying the
 * problem+json fields of the answer (docs/client.md, "Errors"), plus the two for no answer.
 */

/** The problem+json body every agentrun error answer carries (docs/run-api.md). */
export interface ProblemFields {
  type?: string;
  title?: string;
  error?: string;
  detail?: string;
  request_id?: string;
}

/** Any failure of a call made by the client. */
export class AgentRunError extends Error {
  override name = 'AgentRunError';
}

/** The API answered with a status that is not a success. */
export class APIError extends AgentRunError {
  override name = 'APIError';
  readonly status: number;
  readonly headers: Headers;
  readonly type: string | undefined;
  readonly title: string | undefined;
  readonly error: string | undefined;
  readonly detail: string | undefined;
  readonly request_id: string | undefined;
  /** The parsed body (problem+json), or its text when it was not JSON. */
  readonly body: unknown;

  constructor(status: number, headers: Headers, body: unknown) {
    const problem: ProblemFields = typeof body === 'object' && body !== null ? (body as ProblemFields) : {};
    super(`${status} ${problem.detail ?? problem.error ?? problem.title ?? (typeof body === 'string' && body ? body : 'status code')}`);
    this.status = status;
    this.headers = headers;
    this.body = body;
    this.type = str(problem.type);
    this.title = str(problem.title);
    this.error = str(problem.error);
    this.detail = str(problem.detail);
    this.request_id = str(problem.request_id) ?? headers.get('x-request-id') ?? undefined;
  }
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export class BadRequestError extends APIError {
  override name = 'BadRequestError';
}
export class AuthenticationError extends APIError {
  override name = 'AuthenticationError';
}
export class PermissionDeniedError extends APIError {
  override name = 'PermissionDeniedError';
}
export class NotFoundError extends APIError {
  override name = 'NotFoundError';
}
export class ConflictError extends APIError {
  override name = 'ConflictError';
}
export class UnprocessableEntityError extends APIError {
  override name = 'UnprocessableEntityError';
}
export class RateLimitError extends APIError {
  override name = 'RateLimitError';
}
export class InternalServerError extends APIError {
  override name = 'InternalServerError';
}

/**
 * The API answered with a success status, but not with what the operation answers: a body that
 * is not JSON, one the client's `checkAnswer` option refused, or a page whose cursor came before
 * (paging on would never end). Never retried: the same server gives the same answer.
 */
export class APIResponseError extends AgentRunError {
  override name = 'APIResponseError';
}

/** The request never got an answer (DNS, refused connection, reset, a fetch that threw). */
export class APIConnectionError extends AgentRunError {
  override name = 'APIConnectionError';
  constructor(message = 'Connection error.', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** No answer within the call's timeout. */
export class APIConnectionTimeoutError extends APIConnectionError {
  override name = 'APIConnectionTimeoutError';
  constructor(message = 'Request timed out.') {
    super(message);
  }
}

/** The caller's own `AbortSignal` ended the call; not retried. */
export class APIUserAbortError extends AgentRunError {
  override name = 'APIUserAbortError';
  constructor(message = 'Request was aborted.') {
    super(message);
  }
}

const BY_STATUS: Record<number, typeof APIError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/** The error class for an answer's status. */
export const errorForStatus = (status: number, headers: Headers, body: unknown): APIError => {
  const ErrorClass = status >= 500 ? InternalServerError : (BY_STATUS[status] ?? APIError);
  return new ErrorClass(status, headers, body);
};

/** `runs.wait()` gave up: the run was not finished within its `timeoutMs`. */
export class WaitTimeoutError extends AgentRunError {
  override name = 'WaitTimeoutError';
  readonly runId: string;
  readonly timeoutMs: number;
  /** The run's state at the last look, if any look answered. */
  readonly lastState: string | undefined;

  constructor(runId: string, timeoutMs: number, lastState: string | undefined) {
    super(`run ${runId} did not finish within ${timeoutMs} ms${lastState ? ` (last seen ${lastState})` : ''}`);
    this.runId = runId;
    this.timeoutMs = timeoutMs;
    this.lastState = lastState;
  }
}
