import { defaultHmac, type HmacPort } from './crypto.js';
import { decodeHex, prefixed } from './encoding.js';
import { topLevelField } from './json-field.js';
import { hmacWithTextKey, matchesAny, noneWellFormed } from './signatures.js';
import { ageProblem, parseUnixSeconds, unixSeconds } from './timestamp.js';
import { defineVerifier, header, unverified, type Verifier, verified } from './verifier.js';

/** Stripe: `Stripe-Signature: t=<unix>,v1=<hex>[,v1=<hex>…]` over `{t}.{body}`, as `stripe` signs. */

const TOLERANCE_SECONDS = 300;

/** The first `t` and every `v1` of the header; other schemes (`v0`) are ignored, as Stripe does. */
const parseStripeHeader = (value: string): { t: string | undefined; v1: string[] } => {
  let t: string | undefined;
  const v1: string[] = [];
  for (const item of value.split(',')) {
    const eq = item.indexOf('=');
    if (eq < 0) continue;
    const key = item.slice(0, eq).trim();
    const val = item.slice(eq + 1).trim();
    if (key === 't') t ??= val;
    else if (key === 'v1') v1.push(val);
  }
  return { t, v1 };
};

export const stripeVerifier = (hmac: HmacPort = defaultHmac): Verifier<'stripe'> =>
  defineVerifier(
    'stripe',
    async (input) => {
      const signature = header(input.headers, 'stripe-signature');
      if (signature === undefined) return unverified('missing Stripe-Signature header');
      const { t, v1 } = parseStripeHeader(signature);
      const seconds = t === undefined ? undefined : parseUnixSeconds(t);
      if (seconds === undefined) return unverified('malformed Stripe-Signature timestamp');
      const candidates = v1.map(decodeHex);
      if (noneWellFormed(candidates)) return unverified('no v1 signature in Stripe-Signature header');

      const stale = ageProblem(seconds, unixSeconds(input.now), TOLERANCE_SECONDS);
      if (stale !== undefined) return unverified(stale);

      // The key is the whole `whsec_…` string as text: Stripe does not base64-decode it.
      const expected = await hmacWithTextKey(hmac, input.secret, prefixed(`${t}.`, input.body));
      if (!matchesAny(expected, candidates)) return unverified('signature mismatch');
      // Stripe sends no delivery header; the event id in the (now verified) body identifies it.
      const id = topLevelField(input.body, 'id');
      return verified(typeof id === 'string' && id !== '' ? id : undefined);
    },
    ['stripe-signature'],
  );
