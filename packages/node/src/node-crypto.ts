import { createHmac } from 'node:crypto';
import type { HmacPort } from '@agentrun/core';

/**
 * HMAC-SHA256 on node:crypto (OpenSSL) for the signature verifiers. Core's default runs anywhere
 * but is about 12x slower on a 256 KB body, so Node hosts pass this one in. The digest is a
 * Buffer, which is a Uint8Array, so it compares as-is.
 */
export const nodeHmac: HmacPort = {
  hmacSha256: (key, data) => createHmac('sha256', key).update(data).digest(),
};
