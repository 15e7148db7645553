import { bodySignatureProblem } from './body-signature.js';
import { defaultHmac, type HmacPort } from './crypto.js';
import { hexList } from './signatures.js';
import { defineVerifier, header, type Verifier, verified } from './verifier.js';

/** GitHub: `X-Hub-Signature-256: sha256=<hex>`, HMAC of the body, no age limit. */
export const githubVerifier = (hmac: HmacPort = defaultHmac): Verifier<'github'> =>
  defineVerifier(
    'github',
    async (input) =>
      (await bodySignatureProblem(input, hmac, {
        header: 'x-hub-signature-256',
        label: 'X-Hub-Signature-256',
        parse: (v) => hexList(v, 'sha256='),
      })) ?? verified(header(input.headers, 'x-github-delivery')),
    ['x-hub-signature-256', 'x-hub-signature'],
  );
