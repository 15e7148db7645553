// Signature verifiers of the webhook ingress (docs/signatures.md): one module per scheme behind
// `Verifier`.
export { type BodySignatureSpec, bodySignatureProblem } from './body-signature.js';
export { constantTimeEqual } from './constant-time.js';
export {
  type BuiltinHmacPort,
  type BuiltinSha256Port,
  type CryptoImplementation,
  defaultHmac,
  defaultSha256,
  type HmacPort,
  nobleHmac,
  nobleSha256,
  type Sha256Port,
} from './crypto.js';
export { decodeBase64, decodeHex } from './encoding.js';
export { githubVerifier } from './github.js';
export { gitlabVerifier } from './gitlab.js';
export { linearVerifier } from './linear.js';
export { BUILTIN_VERIFIERS, builtinVerifiers, createVerifierRegistry, type VerifierRegistry, verifierFor } from './registry.js';
export { sentryVerifier } from './sentry.js';
export { shopifyVerifier } from './shopify.js';
export { slackVerifier } from './slack.js';
export { standardWebhooksKey, standardWebhooksVerifier } from './standard-webhooks.js';
export { type StandardWebhooksHeaders, signStandardWebhooks } from './standard-webhooks-sign.js';
export { stripeVerifier } from './stripe.js';
export { ageProblem, parseUnixSeconds } from './timestamp.js';
export {
  defineVerifier,
  type SuppliedInput,
  unverified,
  type Verifier,
  type VerifyInput,
  type VerifyResult,
  verified,
} from './verifier.js';
