import { createHash, createHmac } from 'node:crypto';
import type { HmacPort, Sha256Port } from '@agentrun/core';

/**
 * HMAC-SHA256 on node:crypto (OpenSSL) for the signature verifiers. Core's default runs anywhere
 * but is about 12x slower on a 256 KB body, so Node hosts pass this one in. The digest is a
 * Buffer, which is a Uint8Array, so it compares as-is.
 */
export const nodeHmac: HmacPort = {
  hmacSha256: (key, data) => createHmac('sha256', key).update(data).digest(),
};

/** SHA-256 on node:crypto for the delivery identity's body hash; several times faster than core's default. */
export const nodeSha256: Sha256Port = {
  sha256: (data) => createHash('sha256').update(data).digest(),
};
