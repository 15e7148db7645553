/**
 * The hashing ports: the verifiers need HMAC-SHA256, delivery identities and stored key hashes
 * SHA-256. They are ports so core stays free of Node built-ins; the built-in implementations sit
 * behind core's `#crypto` import, which resolves to node:crypto on Node and to the portable
 * @noble/hashes everywhere else (docs/signatures.md, "Hashing").
 */

/** HMAC-SHA256 for the signature verifiers. A port may answer synchronously or not. */
export interface HmacPort {
  hmacSha256(key: Uint8Array, data: Uint8Array): Uint8Array | Promise<Uint8Array>;
}

/**
 * Plain SHA-256, for the delivery identity's body hash (once per delivery without an id), API key
 * hashes and idempotency fingerprints. Synchronous, so identity stays a pure function.
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

/** Which built-in implementation a port is: node:crypto (OpenSSL) or @noble/hashes (portable). */
export type CryptoImplementation = 'node:crypto' | 'noble';

/** A built-in HMAC port, saying which implementation it is. */
export interface BuiltinHmacPort extends HmacPort {
  readonly implementation: CryptoImplementation;
}

/** A built-in SHA-256 port, saying which implementation it is. */
export interface BuiltinSha256Port extends Sha256Port {
  readonly implementation: CryptoImplementation;
}

export { defaultHmac, defaultSha256 } from '../crypto/default.js';
export { hmacPort as nobleHmac, sha256Port as nobleSha256 } from '../crypto/noble.js';
