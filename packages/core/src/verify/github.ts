import { type HmacPort, nobleHmac } from './crypto.js';
import { hexList, hmacWithTextKey, matchesAny, noneWellFormed } from './signatures.js';
import { defineVerifier, header, unverified, type Verifier, verified } from './verifier.js';

/** GitHub: `X-Hub-Signature-256: sha256=<hex>`, HMAC of the body, no age limit. */
export const githubVerifier = (hmac: HmacPort = nobleHmac): Verifier<'github'> =>
  defineVerifier('github', async (input) => {
    const signature = header(input.headers, 'x-hub-signature-256');
    if (signature === undefined) return unverified('missing X-Hub-Signature-256 header');
    const candidates = hexList(signature, 'sha256=');
    if (noneWellFormed(candidates)) return unverified('malformed X-Hub-Signature-256 header');
    const expected = await hmacWithTextKey(hmac, input.secret, input.body);
    if (!matchesAny(expected, candidates)) return unverified('signature mismatch');
    return verified(header(input.headers, 'x-github-delivery'));
  });
