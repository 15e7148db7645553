import { defaultHmac, type HmacPort } from './crypto.js';
import { prefixed } from './encoding.js';
import { hexList, hmacWithTextKey, matchesAny, noneWellFormed } from './signatures.js';
import { ageProblem, parseUnixSeconds, unixSeconds } from './timestamp.js';
import { defineVerifier, header, unverified, type Verifier, verified } from './verifier.js';

/** Slack: `X-Slack-Signature: v0=<hex>` over `v0:{X-Slack-Request-Timestamp}:{body}`, 5 min. */

const TOLERANCE_SECONDS = 5 * 60;

export const slackVerifier = (hmac: HmacPort = defaultHmac): Verifier<'slack'> =>
  defineVerifier(
    'slack',
    async (input) => {
      const signature = header(input.headers, 'x-slack-signature');
      const timestamp = header(input.headers, 'x-slack-request-timestamp');
      if (signature === undefined) return unverified('missing X-Slack-Signature header');
      if (timestamp === undefined) return unverified('missing X-Slack-Request-Timestamp header');
      const seconds = parseUnixSeconds(timestamp);
      if (seconds === undefined) return unverified('malformed X-Slack-Request-Timestamp header');
      const candidates = hexList(signature, 'v0=');
      if (noneWellFormed(candidates)) return unverified('malformed X-Slack-Signature header');

      const stale = ageProblem(seconds, unixSeconds(input.now), TOLERANCE_SECONDS);
      if (stale !== undefined) return unverified(stale);

      const expected = await hmacWithTextKey(hmac, input.secret, prefixed(`v0:${timestamp}:`, input.body));
      // Slack sends no delivery id header; the pipeline falls back to its own identity rules.
      return matchesAny(expected, candidates) ? verified(undefined) : unverified('signature mismatch');
    },
    ['x-slack-signature'],
  );
