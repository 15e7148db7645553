import { createHmac, hash } from 'node:crypto';
import type { HmacPort, Sha256Port } from '@agentrun/core';

/**
 * HMAC-SHA256 on node:crypto (OpenSSL) for the signature verifiers. Core's default runs anywhere
 * but is about 12x slower on a 256 KB body, so Node hosts pass this one in. The digest is a
 * Buffer, which is a Uint8Array, so it compares as-is.
 */
export const nodeHmac: HmacPort = {
  hmacSha256: (key, data) => createHmac('sha256', key).update(data).digest(),
};

/**
 * SHA-256 on node:crypto for the delivery identity's body hash; several times faster than core's
 * default. The one-shot `hash` (Node 20.12+) skips the Hash object, and hashes a string's UTF-8
 * without an encode step of ours.
 */
export const nodeSha256: Sha256Port = {
  sha256: (data) => hash('sha256', data, 'buffer'),
  sha256Text: (text) => hash('sha256', text, 'hex'),
};
