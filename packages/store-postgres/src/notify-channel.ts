import { createHash } from 'node:crypto';

/**
 * The notification channel of a schema, as `agentrun_notify_channel()` and the runs' triggers
 * compute it (migrations/baseline/notifications.ts): `agentrun:<schema>`, or a hash of the schema when that would
 * pass PostgreSQL's 63-byte limit. The hot statements name it as a literal rather than calling
 * the function per statement (a function with its own `SET search_path` is never inlined: about
 * 50 µs of the server's time per claim; bench/README.md, "What was tried").
 */
export function notifyChannel(schema: string): string {
  return Buffer.byteLength(schema) <= 54 ? `agentrun:${schema}` : `agentrun:${createHash('md5').update(schema).digest('hex')}`;
}
