import { type HmacPort, nobleHmac } from './crypto.js';
import { hexList, hmacWithTextKey, matchesAny, noneWellFormed } from './signatures.js';
import { defineVerifier, header, unverified, type Verifier, verified } from './verifier.js';

/** Sentry: `Sentry-Hook-Signature: <hex>`, HMAC of the body keyed by the integration's client secret. */
export const sentryVerifier = (hmac: HmacPort = nobleHmac): Verifier<'sentry'> =>
  defineVerifier('sentry', async (input) => {
    const signature = header(input.headers, 'sentry-hook-signature');
    if (signature === undefined) return unverified('missing Sentry-Hook-Signature header');
    const candidates = hexList(signature);
    if (noneWellFormed(candidates)) return unverified('malformed Sentry-Hook-Signature header');
    const expected = await hmacWithTextKey(hmac, input.secret, input.body);
    if (!matchesAny(expected, candidates)) return unverified('signature mismatch');
    return verified(header(input.headers, 'request-id'));
  });
