import { createHash } from 'node:crypto';

/**
 * The notification channel of a schema, as `agentrun_notify_channel()` (migration 0007) and the
 * runs' trigger (0027) compute it: `agentrun:<schema>`, or a hash of the schema when that would
 * pass PostgreSQL's 63-byte limit. The hot statements name it as a literal rather than calling
 * the function per statement (a function with its own `SET search_path` is never inlined: about
 * 50 µs of the server's time per claim; docs/production.md, "The queue beside graphile-worker").
 */
export function notifyChannel(schema: string): string {
  return Buffer.byteLength(schema) <= 54 ? `agentrun:${schema}` : `agentrun:${createHash('md5').update(schema).digest('hex')}`;
}
