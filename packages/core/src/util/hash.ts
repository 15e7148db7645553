import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import stableStringify from 'fast-json-stable-stringify';

/** SHA-256 of a UTF-8 string, lowercase hex. Portable (no node:crypto). */
export const sha256Hex = (text: string): string => bytesToHex(sha256(utf8ToBytes(text)));

/** SHA-256 of a UTF-8 string, lowercase hex, computed by `digest` (e.g. a `Sha256Port`'s method). */
export const sha256HexWith = (digest: (data: Uint8Array) => Uint8Array, text: string): string => bytesToHex(digest(utf8ToBytes(text)));

/** Canonical JSON: keys sorted at every depth, so equal values hash equally. */
export const canonicalJson = (value: unknown): string => stableStringify(value);

/** Compare two strings in time that depends only on their lengths. */
export const timingSafeEqual = (a: string, b: string): boolean => {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
};
