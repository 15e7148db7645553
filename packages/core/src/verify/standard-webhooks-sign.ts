import type { HmacPort } from './crypto.js';
import { prefixed, utf8 } from './encoding.js';
import { standardWebhooksKey } from './standard-webhooks.js';

/**
 * The signing side of Standard Webhooks (https://www.standardwebhooks.com), for agentrun's own
 * outbound callbacks (docs/callbacks.md). It shares the key decoding and the signed content
 * (`<id>.<timestamp>.<body>`) with the verifier beside it (standard-webhooks.ts), so what one
 * signs the other, and the `standardwebhooks` library, accept.
 */
export interface StandardWebhooksHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

const base64 = (bytes: Uint8Array): string => {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
};

/**
 * The three headers of a message `id` sent at `timestampSeconds` with these exact body bytes,
 * signed with `secret` (`whsec_<base64>`). Throws `TypeError` on a secret that is not base64: the
 * secrets agentrun signs with are its own, generated, so that is a bug, not a bad input.
 */
export async function signStandardWebhooks(
  hmac: HmacPort,
  secret: string,
  id: string,
  timestampSeconds: number,
  body: Uint8Array | string,
): Promise<StandardWebhooksHeaders> {
  const key = standardWebhooksKey(secret);
  if (key === undefined) throw new TypeError('a Standard Webhooks secret must be base64 (after an optional whsec_ prefix)');
  const timestamp = String(Math.floor(timestampSeconds));
  const bytes = typeof body === 'string' ? utf8(body) : body;
  const mac = await hmac.hmacSha256(key, prefixed(`${id}.${timestamp}.`, bytes));
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${base64(mac)}` };
}
