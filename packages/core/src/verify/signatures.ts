import { constantTimeEqual } from './constant-time.js';
import type { HmacPort } from './crypto.js';
import { decodeBase64, decodeHex, listValues, utf8 } from './encoding.js';

/**
 * Whether any candidate equals `expected`. Malformed candidates (`undefined`) never match. Every
 * candidate is compared, so timing does not tell which one matched.
 */
export const matchesAny = (expected: Uint8Array, candidates: readonly (Uint8Array | undefined)[]): boolean => {
  let found = false;
  for (const candidate of candidates) {
    if (candidate !== undefined && constantTimeEqual(candidate, expected)) found = true;
  }
  return found;
};

/** A header's comma-separated values decoded from hex after stripping `prefix` (e.g. `sha256=`). */
export const hexList = (value: string, prefix = ''): (Uint8Array | undefined)[] =>
  listValues(value).map((part) => (part.startsWith(prefix) ? decodeHex(part.slice(prefix.length)) : undefined));

/** A header's comma-separated values decoded from standard base64. */
export const base64List = (value: string): (Uint8Array | undefined)[] => listValues(value).map(decodeBase64);

/** HMAC-SHA256 keyed by the secret's UTF-8 bytes, the key most providers use. */
export const hmacWithTextKey = async (hmac: HmacPort, secret: string, data: Uint8Array): Promise<Uint8Array> =>
  await hmac.hmacSha256(utf8(secret), data);

/** Whether no candidate even parses: then the header is malformed rather than merely wrong. */
export const noneWellFormed = (candidates: readonly (Uint8Array | undefined)[]): boolean =>
  candidates.every((candidate) => candidate === undefined);
