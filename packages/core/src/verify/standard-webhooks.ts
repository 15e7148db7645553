import { defaultHmac, type HmacPort } from './crypto.js';
import { decodeBase64, prefixed } from './encoding.js';
import { matchesAny, noneWellFormed } from './signatures.js';
import { ageProblem, parseUnixSeconds, unixSeconds } from './timestamp.js';
import { defineVerifier, header, type SuppliedInput, unverified, type Verifier, type VerifyResult, verified } from './verifier.js';

/** Standard Webhooks (https://www.standardwebhooks.com), as `standardwebhooks` and `svix` sign. */

const TOLERANCE_SECONDS = 5 * 60;
const SECRET_PREFIX = 'whsec_';

/** The HMAC key: base64 of the secret after an optional `whsec_` prefix; `undefined` if not base64. */
export const standardWebhooksKey = (secret: string): Uint8Array | undefined => {
  const key = decodeBase64(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
  return key === undefined || key.length === 0 ? undefined : key;
};

/**
 * `v1,<b64>` entries separated by spaces. A repeated header arrives joined by `", "`, so a trailing
 * comma is dropped from each entry. Other versions (`v1a`, asymmetric) are not ours to check.
 */
const v1Signatures = (value: string): (Uint8Array | undefined)[] =>
  value
    .split(/\s+/)
    .map((entry) => entry.replace(/,+$/, ''))
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => decodeBase64(entry.slice(3)));

/**
 * Check the `webhook-*` (or `svix-*`) headers of a delivery. Shared with gitlab, whose signing
 * tokens follow the same standard; the delivery id is `webhook-id`.
 */
export const checkStandardWebhooks = async (input: SuppliedInput, hmac: HmacPort): Promise<VerifyResult> => {
  const { headers } = input;
  const id = header(headers, 'webhook-id', 'svix-id');
  const timestamp = header(headers, 'webhook-timestamp', 'svix-timestamp');
  const signature = header(headers, 'webhook-signature', 'svix-signature');
  if (id === undefined) return unverified('missing webhook-id header');
  if (timestamp === undefined) return unverified('missing webhook-timestamp header');
  if (signature === undefined) return unverified('missing webhook-signature header');

  const seconds = parseUnixSeconds(timestamp);
  if (seconds === undefined) return unverified('malformed webhook-timestamp header');
  const stale = ageProblem(seconds, unixSeconds(input.now), TOLERANCE_SECONDS);
  if (stale !== undefined) return unverified(stale);

  const candidates = v1Signatures(signature);
  if (noneWellFormed(candidates)) return unverified('malformed webhook-signature header');
  const key = standardWebhooksKey(input.secret);
  if (key === undefined) return unverified('secret is not a base64 Standard Webhooks key');

  const expected = await hmac.hmacSha256(key, prefixed(`${id}.${timestamp}.`, input.body));
  return matchesAny(expected, candidates) ? verified(id) : unverified('signature mismatch');
};

export const standardWebhooksVerifier = (hmac: HmacPort = defaultHmac): Verifier<'standard-webhooks'> =>
  defineVerifier('standard-webhooks', (input) => checkStandardWebhooks(input, hmac), ['webhook-signature', 'svix-signature']);
