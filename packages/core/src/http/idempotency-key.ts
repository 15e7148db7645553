import { invalidRequest } from '../errors.js';
import type { IdempotencyContext } from '../run/idempotency.js';
import { canonicalJson } from '../util/canonical-json.js';
import { sha256Hex } from '../util/hash.js';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The `Idempotency-Key` of a write with the fingerprint of the request it names: the operation
 * (not the literal path, so `/agent/run` and its alias `/agent/runs` are one request) and the
 * canonical body.
 */
export function withKey(request: Request, operation: string, body: unknown): { idempotency?: IdempotencyContext } {
  const key = request.headers.get('idempotency-key');
  if (key === null) return {};
  if (!IDEMPOTENCY_KEY.test(key)) throw invalidRequest('Idempotency-Key must be 1 to 255 visible ASCII characters');
  return { idempotency: { key, fingerprint: sha256Hex(canonicalJson({ operation, body: body ?? null })) } };
}
