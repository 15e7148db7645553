import { hmacPort, sha256Port } from '#crypto';
import type { BuiltinHmacPort, BuiltinSha256Port } from '../verify/crypto.js';

// Core's one hashing path: every default (handler options `hmac`/`sha256`, the verifiers, delivery
// identities, `sha256Hex` for API keys and idempotency fingerprints) is one of these two. `#crypto`
// is core's package.json `imports` entry: node.ts under the `node` condition, noble.ts elsewhere,
// chosen by the host's runtime or bundler (docs/signatures.md, "Hashing").

/** The default HMAC port: node:crypto on Node, @noble/hashes elsewhere. */
export const defaultHmac: BuiltinHmacPort = hmacPort;

/** The default SHA-256 port: node:crypto on Node, @noble/hashes elsewhere. */
export const defaultSha256: BuiltinSha256Port = sha256Port;
