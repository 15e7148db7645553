import { bodySignatureProblem } from './body-signature.js';
import { defaultHmac, type HmacPort } from './crypto.js';
import { base64List } from './signatures.js';
import { defineVerifier, header, type Verifier, verified } from './verifier.js';

/** Shopify: `X-Shopify-Hmac-Sha256: <base64>`, HMAC of the body, no age limit. */
export const shopifyVerifier = (hmac: HmacPort = defaultHmac): Verifier<'shopify'> =>
  defineVerifier(
    'shopify',
    async (input) =>
      (await bodySignatureProblem(input, hmac, { header: 'x-shopify-hmac-sha256', label: 'X-Shopify-Hmac-Sha256', parse: base64List })) ??
      verified(header(input.headers, 'x-shopify-event-id')),
    ['x-shopify-hmac-sha256'],
  );
