import { bodySignatureProblem } from './body-signature.js';
import { defaultHmac, type HmacPort } from './crypto.js';
import { hexList } from './signatures.js';
import { defineVerifier, header, type Verifier, verified } from './verifier.js';

/** Sentry: `Sentry-Hook-Signature: <hex>`, HMAC of the body keyed by the integration's client secret. */
export const sentryVerifier = (hmac: HmacPort = defaultHmac): Verifier<'sentry'> =>
  defineVerifier(
    'sentry',
    async (input) =>
      (await bodySignatureProblem(input, hmac, {
        header: 'sentry-hook-signature',
        label: 'Sentry-Hook-Signature',
        parse: (v) => hexList(v),
      })) ?? verified(header(input.headers, 'request-id')),
    ['sentry-hook-signature'],
  );
