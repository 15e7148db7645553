import { type HmacPort, nobleHmac } from './crypto.js';
import { base64List, hmacWithTextKey, matchesAny, noneWellFormed } from './signatures.js';
import { defineVerifier, header, unverified, type Verifier, verified } from './verifier.js';

/** Shopify: `X-Shopify-Hmac-Sha256: <base64>`, HMAC of the body, no age limit. */
export const shopifyVerifier = (hmac: HmacPort = nobleHmac): Verifier<'shopify'> =>
  defineVerifier('shopify', async (input) => {
    const signature = header(input.headers, 'x-shopify-hmac-sha256');
    if (signature === undefined) return unverified('missing X-Shopify-Hmac-Sha256 header');
    const candidates = base64List(signature);
    if (noneWellFormed(candidates)) return unverified('malformed X-Shopify-Hmac-Sha256 header');
    const expected = await hmacWithTextKey(hmac, input.secret, input.body);
    if (!matchesAny(expected, candidates)) return unverified('signature mismatch');
    return verified(header(input.headers, 'x-shopify-event-id'));
  });
