import { createHmac, hash } from 'node:crypto';
import type { BuiltinHmacPort, BuiltinSha256Port } from '../verify/crypto.js';

// The Node half of `#crypto` (docs/signatures.md, "Hashing"): node:crypto (OpenSSL), about 11x
// faster than @noble/hashes on a 256 KB body. The only core module that imports a Node built-in;
// it is reached only through the `node` condition of `#crypto` in package.json.

/** HMAC-SHA256 on node:crypto. The digest is a Buffer, which is a Uint8Array, so it compares as-is. */
export const hmacPort: BuiltinHmacPort = {
  implementation: 'node:crypto',
  hmacSha256: (key, data) => createHmac('sha256', key).update(data).digest(),
};

/**
 * SHA-256 on node:crypto. The one-shot `hash` (Node 20.12+) skips the Hash object, and hashes a
 * string's UTF-8 without an encode step of ours.
 */
export const sha256Port: BuiltinSha256Port = {
  implementation: 'node:crypto',
  sha256: (data) => hash('sha256', data, 'buffer'),
  sha256Text: (text) => hash('sha256', text, 'hex'),
};
