import { createHmac, randomBytes } from 'node:crypto';
import type { SignatureScheme } from '../../src/control/schemas.js';

/**
 * Independent signers for every scheme, written from docs/signatures.md ("Schemes") on node:crypto
 * and Buffers, so the verifiers are checked against a second implementation rather than against
 * themselves. The interop tests also check these signers against the providers' own libraries.
 */

const hmac = (key: string | Buffer, ...parts: (string | Uint8Array)[]): Buffer => {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest();
};

export const hmacHex = (key: string | Buffer, ...parts: (string | Uint8Array)[]) => hmac(key, ...parts).toString('hex');
export const hmacBase64 = (key: string | Buffer, ...parts: (string | Uint8Array)[]) => hmac(key, ...parts).toString('base64');

const newStandardSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const standardKey = (secret: string) => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');

export const signStandard = (secret: string, id: string, seconds: number, body: Uint8Array) =>
  `v1,${hmacBase64(standardKey(secret), `${id}.${seconds}.`, body)}`;

/** A well-formed signature that is not the right one: same shape, one bit flipped. */
const wrongHex = (hex: string) => (hex[0] === '0' ? '1' : '0') + hex.slice(1);
const wrongBase64 = (b64: string) => {
  const bytes = Buffer.from(b64, 'base64');
  bytes[0] = bytes[0]! ^ 1;
  return bytes.toString('base64');
};

export const enc = (text: string) => new TextEncoder().encode(text);

/** What a case signs: headers plus, for linear, a body that carries its own timestamp. */
interface Signed {
  body: Uint8Array;
  headers: Record<string, string>;
}

/** One scheme, or one mode of one (gitlab has two), as the shared battery drives it. */
export interface SchemeCase {
  name: string;
  scheme: SignatureScheme;
  newSecret(): string;
  /** Sign `payload` as the provider would at `signedAt` (ms). */
  sign(payload: Uint8Array, secret: string, signedAt: number): Signed;
  /** The same delivery with a wrong signature listed before the right one. */
  withWrongFirst(headers: Record<string, string>): Record<string, string>;
  /** Headers whose absence alone must be refused. */
  required: string[];
  /** Age limit in ms, or none. */
  toleranceMs?: number;
  /** Whether the credential covers the body (gitlab's plain token does not). */
  coversBody: boolean;
  /** The delivery id the verifier should report for a signed delivery. */
  deliveryId(signed: Signed): string | undefined;
}

const seconds = (ms: number) => Math.floor(ms / 1000);
const DELIVERY = 'd-7f3c2a';

/** The Standard Webhooks signature header with a wrong entry first. */
const standardWrongFirst = (h: Record<string, string>) => {
  const sig = h['webhook-signature']!;
  return { ...h, 'webhook-signature': `v1,${wrongBase64(sig.slice(3))} ${sig}` };
};

/**
 * Linear's age lives in the body, so its payload is wrapped in a JSON envelope with the
 * timestamp. The raw bytes go inside a JSON string, with the few bytes that would end or escape
 * it replaced, so the body stays JSON (lossy UTF-8 decoding keeps invalid sequences valid).
 */
const linearEnvelope = (payload: Uint8Array, signedAt: number): Uint8Array => {
  const inner = payload.map((b) => (b < 0x20 || b === 0x22 || b === 0x5c ? 0x61 : b));
  return Buffer.concat([enc(`{"webhookTimestamp":${signedAt},"data":"`), inner, enc('"}')]);
};

export const CASES: SchemeCase[] = [
  {
    name: 'standard-webhooks',
    scheme: 'standard-webhooks',
    newSecret: newStandardSecret,
    sign: (body, secret, at) => ({
      body,
      headers: {
        'webhook-id': 'msg_2b',
        'webhook-timestamp': String(seconds(at)),
        'webhook-signature': signStandard(secret, 'msg_2b', seconds(at), body),
      },
    }),
    withWrongFirst: standardWrongFirst,
    required: ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
    toleranceMs: 300_000,
    coversBody: true,
    deliveryId: () => 'msg_2b',
  },
  {
    name: 'stripe',
    scheme: 'stripe',
    newSecret: () => `whsec_${randomBytes(16).toString('hex')}`,
    sign: (body, secret, at) => ({
      body,
      headers: { 'stripe-signature': `t=${seconds(at)},v1=${hmacHex(secret, `${seconds(at)}.`, body)}` },
    }),
    withWrongFirst: (h) => {
      const [t, v1] = h['stripe-signature']!.split(',') as [string, string];
      return { ...h, 'stripe-signature': `${t},v1=${wrongHex(v1.slice(3))},${v1},v0=abc` };
    },
    required: ['stripe-signature'],
    toleranceMs: 300_000,
    coversBody: true,
    deliveryId: (s) => {
      try {
        const id = JSON.parse(Buffer.from(s.body).toString('utf8')).id;
        return typeof id === 'string' ? id : undefined;
      } catch {
        return undefined;
      }
    },
  },
  {
    name: 'github',
    scheme: 'github',
    newSecret: () => randomBytes(20).toString('hex'),
    sign: (body, secret) => ({
      body,
      headers: { 'x-hub-signature-256': `sha256=${hmacHex(secret, body)}`, 'x-github-delivery': DELIVERY },
    }),
    withWrongFirst: (h) => {
      const sig = h['x-hub-signature-256']!;
      return { ...h, 'x-hub-signature-256': `sha256=${wrongHex(sig.slice(7))}, ${sig}` };
    },
    required: ['x-hub-signature-256'],
    coversBody: true,
    deliveryId: () => DELIVERY,
  },
  {
    name: 'slack',
    scheme: 'slack',
    newSecret: () => randomBytes(16).toString('hex'),
    sign: (body, secret, at) => ({
      body,
      headers: {
        'x-slack-request-timestamp': String(seconds(at)),
        'x-slack-signature': `v0=${hmacHex(secret, `v0:${seconds(at)}:`, body)}`,
      },
    }),
    withWrongFirst: (h) => {
      const sig = h['x-slack-signature']!;
      return { ...h, 'x-slack-signature': `v0=${wrongHex(sig.slice(3))}, ${sig}` };
    },
    required: ['x-slack-signature', 'x-slack-request-timestamp'],
    toleranceMs: 300_000,
    coversBody: true,
    deliveryId: () => undefined,
  },
  {
    name: 'sentry',
    scheme: 'sentry',
    newSecret: () => randomBytes(32).toString('hex'),
    sign: (body, secret) => ({ body, headers: { 'sentry-hook-signature': hmacHex(secret, body), 'request-id': DELIVERY } }),
    withWrongFirst: (h) => ({ ...h, 'sentry-hook-signature': `${wrongHex(h['sentry-hook-signature']!)}, ${h['sentry-hook-signature']}` }),
    required: ['sentry-hook-signature'],
    coversBody: true,
    deliveryId: () => DELIVERY,
  },
  {
    name: 'linear',
    scheme: 'linear',
    newSecret: () => `lin_wh_${randomBytes(16).toString('hex')}`,
    sign: (payload, secret, at) => {
      const body = linearEnvelope(payload, at);
      return { body, headers: { 'linear-signature': hmacHex(secret, body), 'linear-delivery': DELIVERY } };
    },
    withWrongFirst: (h) => ({ ...h, 'linear-signature': `${wrongHex(h['linear-signature']!)},${h['linear-signature']}` }),
    required: ['linear-signature'],
    toleranceMs: 60_000,
    coversBody: true,
    deliveryId: () => DELIVERY,
  },
  {
    name: 'shopify',
    scheme: 'shopify',
    newSecret: () => `shpss_${randomBytes(16).toString('hex')}`,
    sign: (body, secret) => ({ body, headers: { 'x-shopify-hmac-sha256': hmacBase64(secret, body), 'x-shopify-event-id': DELIVERY } }),
    withWrongFirst: (h) => ({
      ...h,
      'x-shopify-hmac-sha256': `${wrongBase64(h['x-shopify-hmac-sha256']!)}, ${h['x-shopify-hmac-sha256']}`,
    }),
    required: ['x-shopify-hmac-sha256'],
    coversBody: true,
    deliveryId: () => DELIVERY,
  },
  {
    name: 'gitlab (signing token)',
    scheme: 'gitlab',
    newSecret: newStandardSecret,
    sign: (body, secret, at) => ({
      body,
      headers: {
        'webhook-id': 'wh_9',
        'webhook-timestamp': String(seconds(at)),
        'webhook-signature': signStandard(secret, 'wh_9', seconds(at), body),
        'idempotency-key': DELIVERY,
      },
    }),
    withWrongFirst: standardWrongFirst,
    // Without `webhook-signature` gitlab falls back to the token, which is also missing.
    required: ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
    toleranceMs: 300_000,
    coversBody: true,
    deliveryId: () => DELIVERY,
  },
  {
    name: 'gitlab (secret token)',
    scheme: 'gitlab',
    newSecret: () => randomBytes(18).toString('base64url'),
    sign: (body, secret) => ({ body, headers: { 'x-gitlab-token': secret, 'idempotency-key': DELIVERY } }),
    // A token is one value, not a list: there is no "several" to accept.
    withWrongFirst: (h) => h,
    required: ['x-gitlab-token'],
    coversBody: false,
    deliveryId: () => DELIVERY,
  },
];
