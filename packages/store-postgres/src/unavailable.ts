/**
 * Which failures mean "the database cannot be reached for now" (answered 503 with Retry-After;
 * docs/production.md, "When the database goes away") rather than a bug (500): refused or broken
 * connections, a server shutting down or starting, a pool that cannot connect in time.
 */

/** SQLSTATEs of an unreachable or unavailable server: class 08 (connection exception) and these. */
const UNAVAILABLE_STATES = new Set([
  '57P01', // admin_shutdown (pg_terminate_backend, a fast shutdown)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, in recovery)
  '53300', // too_many_connections
  '25006', // read_only_sql_transaction (a standby after failover)
]);

/** Socket errors of a connection that could not be made or was cut. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** Messages node-postgres uses for a lost or unobtainable connection (it gives them no code). */
const PG_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|the database system is (starting up|shutting down|in recovery)/i;

export function isUnavailableError(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('08') || UNAVAILABLE_STATES.has(code) || NETWORK_CODES.has(code))) return true;
    if (PG_MESSAGES.test(e.message)) return true;
    // An AggregateError (several addresses, all refused) is unavailable when its parts are.
    if (e instanceof AggregateError && e.errors.some(isUnavailableError)) return true;
  }
  return false;
}
