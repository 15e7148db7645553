import { bodySignatureProblem } from './body-signature.js';
import { defaultHmac, type HmacPort } from './crypto.js';
import { topLevelField } from './json-field.js';
import { hexList } from './signatures.js';
import { ageProblem } from './timestamp.js';
import { defineVerifier, header, unverified, type Verifier, verified } from './verifier.js';

/** Linear: `Linear-Signature: <hex>` of the body; the body's `webhookTimestamp` (ms) within 60 s. */

const TOLERANCE_MS = 60_000;

export const linearVerifier = (hmac: HmacPort = defaultHmac): Verifier<'linear'> =>
  defineVerifier(
    'linear',
    async (input) => {
      const problem = await bodySignatureProblem(input, hmac, {
        header: 'linear-signature',
        label: 'Linear-Signature',
        parse: (v) => hexList(v),
      });
      if (problem) return problem;

      // The age lives in the signed body, so it is read only once the bytes are known to be genuine.
      const sentAt = topLevelField(input.body, 'webhookTimestamp');
      if (typeof sentAt !== 'number') return unverified('missing webhookTimestamp in body');
      const stale = ageProblem(sentAt, input.now, TOLERANCE_MS);
      if (stale !== undefined) return unverified(stale);
      return verified(header(input.headers, 'linear-delivery'));
    },
    ['linear-signature'],
  );
