/** Identifiers and random tokens from the Web Crypto API (global in Node, Deno, Bun, workers). */

import { HEX_DIGITS } from './hash.js';

/** Random bytes for ids, filled a batch at a time: one call to the random source per 256 ids. */
const pool = new Uint8Array(16 * 256);
let used = pool.length;
const codes = new Array<number>(36);

/**
 * A random (version 4) UUID. Built here rather than by `crypto.randomUUID()` because Node builds
 * its UUIDs by concatenation: each stays a rope of some twenty string nodes for as long as a
 * record holds it, ten times the memory of the flat string made here. Same randomness source.
 */
export function newId(): string {
  if (used === pool.length) {
    globalThis.crypto.getRandomValues(pool);
    used = 0;
  }
  pool[used + 6] = ((pool[used + 6] as number) & 0x0f) | 0x40; // version 4
  pool[used + 8] = ((pool[used + 8] as number) & 0x3f) | 0x80; // RFC 9562 variant
  let c = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) codes[c++] = 0x2d; // '-'
    const b = pool[used + i] as number;
    codes[c++] = HEX_DIGITS.charCodeAt(b >> 4);
    codes[c++] = HEX_DIGITS.charCodeAt(b & 15);
  }
  used += 16;
  return String.fromCharCode.apply(null, codes);
}

let lastMs = -1;
let sequence = 0;

/**
 * A version 7 UUID (RFC 9562): the time in ms, then a sequence within the millisecond, then
 * random bits. Each is greater, as a string, than every one this process made before, even within
 * one millisecond or with the clock set back, so records listed newest first by (time, id) come in
 * the order they were made.
 */
export function newOrderedId(now: number = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    sequence = 0;
  } else if (++sequence > 0xfff) {
    lastMs++;
    sequence = 0;
  }
  const ms = lastMs.toString(16).padStart(12, '0');
  // newId()'s variant and random groups: '-vxxx-xxxxxxxxxxxx' from index 18.
  return `${ms.slice(0, 8)}-${ms.slice(8)}-7${sequence.toString(16).padStart(3, '0')}${newId().slice(18)}`;
}

/** `n` random bytes as unpadded base64url: URL-safe, fit for tokens and API keys. */
export const randomToken = (bytes = 32): string => {
  const buf = new Uint8Array(bytes);
  globalThis.crypto.getRandomValues(buf);
  return base64UrlEncode(buf);
};

export const base64UrlEncode = (bytes: Uint8Array): string => {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
};

export const base64UrlDecode = (text: string): Uint8Array | undefined => {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  const b64 = text.replaceAll('-', '+').replaceAll('_', '/');
  try {
    return Uint8Array.from(atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
};
