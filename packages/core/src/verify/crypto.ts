import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';

/**
 * The one primitive the verifiers need. It is a port so core stays free of Node built-ins: the
 * portable default below runs anywhere, and a Node host passes `nodeHmac` from `@agentrun/node`
 * (node:crypto, about 12x faster on a 256 KB body). A port may answer synchronously or not.
 */
export interface HmacPort {
  hmacSha256(key: Uint8Array, data: Uint8Array): Uint8Array | Promise<Uint8Array>;
}

/** Pure-TypeScript HMAC-SHA256 (@noble/hashes): the default when a host passes no port. */
export const nobleHmac: HmacPort = {
  hmacSha256: (key, data) => hmac(sha256, key, data),
};

/**
 * Plain SHA-256, for the delivery identity's body hash (once per delivery without an id). A port
 * for the same reason as {@link HmacPort}: a Node host passes `nodeSha256` from `@agentrun/node`
 * (node:crypto, several times faster than @noble). Synchronous, so identity stays a pure function.
 */
export interface Sha256Port {
  sha256(data: Uint8Array): Uint8Array;
  /**
   * Optional: SHA-256 of a string's UTF-8 bytes as lowercase hex, for a platform that does this in
   * one step (node:crypto's `hash`), saving the encode and the hex conversion. Must equal the hex
   * of `sha256` over the UTF-8 bytes.
   */
  sha256Text?(text: string): string;
}

/** Pure-TypeScript SHA-256 (@noble/hashes): the default when a host passes no port. */
export const nobleSha256: Sha256Port = {
  sha256: (data) => sha256(data),
};
