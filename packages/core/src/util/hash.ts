import { utf8ToBytes } from '@noble/hashes/utils.js';
import { defaultSha256, type Sha256Port } from '../verify/crypto.js';

/** SHA-256 of a UTF-8 string, lowercase hex, on the default port (node:crypto on Node, @noble elsewhere). */
export const sha256Hex = (text: string): string => sha256HexWith(defaultSha256, text);

/** SHA-256 of a UTF-8 string, lowercase hex, computed by a `Sha256Port` (in one step where it can). */
export const sha256HexWith = (port: Sha256Port, text: string): string => port.sha256Text?.(text) ?? toHex(port.sha256(utf8ToBytes(text)));

/** Lowercase hex digits, by value. */
export const HEX_DIGITS = '0123456789abcdef';

/**
 * Lowercase hex of some bytes, as one flat string. (Building it by `+=`, as @noble's bytesToHex
 * does, leaves a rope of one node per byte behind every stored digest: several times its size.)
 */
export function toHex(bytes: Uint8Array): string {
  const codes = new Array<number>(bytes.length * 2);
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    codes[2 * i] = HEX_DIGITS.charCodeAt(b >> 4);
    codes[2 * i + 1] = HEX_DIGITS.charCodeAt(b & 15);
  }
  // Spread in slices: an argument list has a length limit.
  let out = '';
  for (let i = 0; i < codes.length; i += 8192) out += String.fromCharCode(...codes.slice(i, i + 8192));
  return out;
}
