import { base64UrlEncode } from '../util/ids.js';

/** Secrets the service generates (docs/management-api.md, "Webhooks"): ≥ 32 random bytes. */
const random = (n: number) => globalThis.crypto.getRandomValues(new Uint8Array(n));

/** Bearer and URL tokens: 32 random bytes, URL-safe base64, no padding. */
export const generateToken = (): string => base64UrlEncode(random(32));

/** A Standard Webhooks signing secret: `whsec_` + standard base64 of 32 random bytes. */
export const generateStandardWebhooksSecret = (): string => {
  let binary = '';
  for (const b of random(32)) binary += String.fromCharCode(b);
  return `whsec_${btoa(binary)}`;
};

/** RFC 3986 unreserved characters only: a value that can stand in a URL path unescaped. */
export const isUrlSafe = (value: string): boolean => /^[A-Za-z0-9._~-]+$/.test(value);
