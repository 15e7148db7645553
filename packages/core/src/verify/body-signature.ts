import type { HmacPort } from './crypto.js';
import { hmacWithTextKey, matchesAny, noneWellFormed } from './signatures.js';
import { header, type SuppliedInput, unverified, type VerifyResult } from './verifier.js';

/** Where a scheme of the common kind puts its signature: one header, an HMAC of the raw body. */
export interface BodySignatureSpec {
  /** Lowercase header name. */
  header: string;
  /** The header as providers spell it, for reasons. */
  label: string;
  /** The header value → candidate signatures (`undefined` for one that is malformed). */
  parse(value: string): (Uint8Array | undefined)[];
}

/**
 * The check GitHub, Sentry, Shopify and Linear share: the header is there, well formed, and one of
 * its signatures is the HMAC of the exact body under the secret. `undefined` when it holds.
 */
export async function bodySignatureProblem(
  input: SuppliedInput,
  hmac: HmacPort,
  spec: BodySignatureSpec,
): Promise<VerifyResult | undefined> {
  const value = header(input.headers, spec.header);
  if (value === undefined) return unverified(`missing ${spec.label} header`);
  const candidates = spec.parse(value);
  if (noneWellFormed(candidates)) return unverified(`malformed ${spec.label} header`);
  if (!matchesAny(await hmacWithTextKey(hmac, input.secret, input.body), candidates)) return unverified('signature mismatch');
  return undefined;
}
