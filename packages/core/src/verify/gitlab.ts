import { constantTimeEqual } from './constant-time.js';
import { defaultHmac, type HmacPort } from './crypto.js';
import { utf8 } from './encoding.js';
import { checkStandardWebhooks } from './standard-webhooks.js';
import { defineVerifier, header, unverified, type Verifier, verified } from './verifier.js';

/**
 * GitLab has two ways to authenticate a webhook: a signing token, which signs each delivery the
 * Standard Webhooks way (`webhook-signature` present), and the older secret token, sent verbatim
 * as `X-Gitlab-Token`. The secret token does not cover the body; it is the weaker of the two.
 */
export const gitlabVerifier = (hmac: HmacPort = defaultHmac): Verifier<'gitlab'> =>
  defineVerifier(
    'gitlab',
    async (input) => {
      // GitLab's own delivery id; else the signed message id, which only signed deliveries carry.
      const deliveryId = () => header(input.headers, 'idempotency-key', 'webhook-id');
      if (input.headers.has('webhook-signature')) {
        const result = await checkStandardWebhooks(input, hmac);
        return result.ok ? verified(header(input.headers, 'idempotency-key') ?? result.deliveryId) : result;
      }
      const token = input.headers.get('x-gitlab-token');
      if (token === null || token === '') return unverified('missing X-Gitlab-Token or webhook-signature header');
      if (!constantTimeEqual(utf8(token), utf8(input.secret))) return unverified('token mismatch');
      return verified(deliveryId());
    },
    ['x-gitlab-token', 'webhook-signature'],
  );
