import { rawKey, type SecretKeyOption } from '../control/secret-cipher.js';
import { base64UrlDecode, base64UrlEncode } from '../util/ids.js';
import { constantTimeEqual } from '../verify/constant-time.js';
import type { HmacPort } from '../verify/crypto.js';

// The download link of a stored artifact (docs/artifacts.md, "Downloads"): no API key, but an
// HMAC-SHA256 over (uid, expiry) with a server key, so a browser can open it until it expires and
// nobody can make one for another artifact or a later time.

/** Why a presented link does not open its artifact. */
type LinkRefusal = 'tampered' | 'expired';

export interface DownloadSigner {
  /** The query (`expires`, `signature`) that opens `uid` until `expiresAtMs` (whole seconds). */
  sign(uid: string, expiresAtMs: number): Promise<{ expires: string; signature: string }>;
  /** `undefined` when the link is genuine and not expired at `nowMs`; else why not. */
  check(uid: string, expires: string | null, signature: string | null, nowMs: number): Promise<LinkRefusal | undefined>;
}

const encoder = new TextEncoder();

/**
 * The signing key: `downloadUrlKey` when given; else derived from the first `secretKey` (an HMAC
 * of a fixed label, so the secret key itself never signs anything); else random for this process
 * (links then open only on the process that made them: set one of the two when several serve).
 */
export async function downloadKey(hmac: HmacPort, option: { downloadUrlKey?: string | Uint8Array; secretKey?: SecretKeyOption }) {
  if (option.downloadUrlKey !== undefined) {
    const key = typeof option.downloadUrlKey === 'string' ? encoder.encode(option.downloadUrlKey) : option.downloadUrlKey;
    if (key.byteLength < 32) throw new TypeError('downloadUrlKey must be at least 32 bytes');
    return key;
  }
  if (option.secretKey !== undefined) {
    const first = typeof option.secretKey === 'string' || option.secretKey instanceof Uint8Array ? option.secretKey : option.secretKey[0];
    if (first !== undefined) return await hmac.hmacSha256(rawKey(first), encoder.encode('agentrun artifact download v1'));
  }
  return globalThis.crypto.getRandomValues(new Uint8Array(32));
}

/**
 * Signs and checks download links. The key is made at the first link (`key` is called once): an
 * agentrun that never serves an artifact computes nothing for it.
 */
export function createDownloadSigner(hmac: HmacPort, key: () => Promise<Uint8Array>): DownloadSigner {
  let made: Promise<Uint8Array> | undefined;
  const mac = async (uid: string, expires: string) => {
    made ??= key();
    return await hmac.hmacSha256(await made, encoder.encode(`${uid}\n${expires}`));
  };
  return {
    async sign(uid, expiresAtMs) {
      const expires = String(Math.floor(expiresAtMs / 1000));
      return { expires, signature: base64UrlEncode(await mac(uid, expires)) };
    },
    async check(uid, expires, signature, nowMs) {
      if (expires === null || signature === null || signature.length > 64 || !/^[0-9]{1,12}$/.test(expires)) return 'tampered';
      const presented = base64UrlDecode(signature);
      if (presented === undefined || !constantTimeEqual(presented, await mac(uid, expires))) return 'tampered';
      return Number(expires) * 1000 <= nowMs ? 'expired' : undefined;
    },
  };
}
