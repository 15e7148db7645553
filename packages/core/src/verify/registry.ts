import { SIGNATURE_SCHEMES, type SignatureScheme } from '../control/schemas.js';
import { defaultHmac, type HmacPort } from './crypto.js';
import { githubVerifier } from './github.js';
import { gitlabVerifier } from './gitlab.js';
import { linearVerifier } from './linear.js';
import { sentryVerifier } from './sentry.js';
import { shopifyVerifier } from './shopify.js';
import { slackVerifier } from './slack.js';
import { standardWebhooksVerifier } from './standard-webhooks.js';
import { stripeVerifier } from './stripe.js';
import { defineVerifier, unverified, type Verifier, type VerifyInput, type VerifyResult } from './verifier.js';

/** The built-in schemes (docs/signatures.md, "Schemes"), each a factory over the HMAC port. */
export const BUILTIN_VERIFIERS: { readonly [S in SignatureScheme]: (hmac?: HmacPort) => Verifier<S> } = {
  'standard-webhooks': standardWebhooksVerifier,
  stripe: stripeVerifier,
  github: githubVerifier,
  slack: slackVerifier,
  sentry: sentryVerifier,
  linear: linearVerifier,
  shopify: shopifyVerifier,
  gitlab: gitlabVerifier,
};

/** Fails closed for a scheme nobody registered (say, a stored name from a newer version). */
const unknownScheme = (scheme: string): Verifier<string> => defineVerifier(scheme, () => unverified('unknown signature scheme'));

/** The built-in verifier of `scheme`, on `hmac` (default: node:crypto on Node, @noble elsewhere). */
export const verifierFor = (scheme: SignatureScheme, hmac: HmacPort = defaultHmac): Verifier => {
  const factory = Object.hasOwn(BUILTIN_VERIFIERS, scheme) ? BUILTIN_VERIFIERS[scheme] : undefined;
  return factory === undefined ? (unknownScheme(scheme) as Verifier) : factory(hmac);
};

/** Every built-in verifier on one HMAC port, ready for `createVerifierRegistry`. */
export const builtinVerifiers = (hmac: HmacPort = defaultHmac): Verifier[] =>
  SIGNATURE_SCHEMES.map((scheme) => BUILTIN_VERIFIERS[scheme](hmac));

/** Verifiers by scheme name: what the ingress pipeline holds instead of knowing any scheme. */
export interface VerifierRegistry {
  /** Registered scheme names, in registration order. */
  readonly schemes: readonly string[];
  get(scheme: string): Verifier<string> | undefined;
  /** Verify with `scheme`'s verifier; an unregistered scheme fails closed. Never throws. */
  verify(scheme: string, input: VerifyInput): Promise<VerifyResult>;
}

/**
 * A registry over `verifiers` (default: the built-ins on the default port). Later entries replace
 * earlier ones of the same scheme, so a host can add a scheme or swap a built-in:
 * `createVerifierRegistry([...builtinVerifiers(), myVerifier])`.
 */
export const createVerifierRegistry = (verifiers: Iterable<Verifier<string>> = builtinVerifiers()): VerifierRegistry => {
  const byScheme = new Map<string, Verifier<string>>();
  for (const verifier of verifiers) {
    byScheme.delete(verifier.scheme);
    byScheme.set(verifier.scheme, verifier);
  }
  const schemes = Object.freeze([...byScheme.keys()]);
  return {
    schemes,
    get: (scheme) => byScheme.get(scheme),
    verify: (scheme, input) => (byScheme.get(scheme) ?? unknownScheme(scheme)).verify(input),
  };
};
