/**
 * When and how long to wait before trying a call again (docs/client.md, "Retries"). The server
 * may decide with `x-should-retry`; otherwise connection errors, 408, 409, 429 and 5xx are retried.
 */

/** Whether an answer with this status and these headers is worth another attempt. */
export const shouldRetry = (status: number, headers: Headers): boolean => {
  const verdict = headers.get('x-should-retry');
  if (verdict === 'true') return true;
  if (verdict === 'false') return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
};

const INITIAL_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
/** A server-given wait beyond this is not honoured as given (the backoff is used instead). */
const MAX_SERVER_DELAY_MS = 60_000;

/**
 * The wait before retry number `retriesLeft` of `maxRetries`: the server's `retry-after-ms` or
 * `Retry-After` (seconds or an HTTP date) when given and sane, else exponential backoff with up
 * to 25% jitter taken off, so clients retrying together spread out.
 */
export const retryDelayMs = (retriesLeft: number, maxRetries: number, headers: Headers | undefined, random = Math.random): number => {
  const fromServer = headers ? serverDelayMs(headers) : undefined;
  if (fromServer !== undefined && fromServer >= 0 && fromServer <= MAX_SERVER_DELAY_MS) return fromServer;
  const attempt = maxRetries - retriesLeft;
  const delay = Math.min(INITIAL_DELAY_MS * 2 ** attempt, MAX_DELAY_MS);
  return delay * (1 - random() * 0.25);
};

const serverDelayMs = (headers: Headers): number | undefined => {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Number(ms);
  const after = headers.get('retry-after');
  if (after === null || after.trim() === '') return undefined;
  if (Number.isFinite(Number(after))) return Number(after) * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : date - Date.now();
};
