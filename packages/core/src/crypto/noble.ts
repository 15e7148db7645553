import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import type { BuiltinHmacPort, BuiltinSha256Port } from '../verify/crypto.js';

// The portable half of `#crypto` (docs/signatures.md, "Hashing"): pure TypeScript, any runtime.
// Its exports have the same names and types as node.ts beside it.

/** HMAC-SHA256 on @noble/hashes. */
export const hmacPort: BuiltinHmacPort = {
  implementation: 'noble',
  hmacSha256: (key, data) => hmac(sha256, key, data),
};

/** SHA-256 on @noble/hashes. */
export const sha256Port: BuiltinSha256Port = {
  implementation: 'noble',
  sha256: (data) => sha256(data),
};
