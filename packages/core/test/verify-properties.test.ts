import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SIGNATURE_SCHEMES } from '../src/control/schemas.js';
import { verifierFor } from '../src/verify/registry.js';
import { CASES, enc, type SchemeCase } from './support/signers.js';

/**
 * Properties of every verifier (DEVELOPERS' rule for verifiers), against the independent signers.
 * Runs per CI run: 9 cases x (150 round trip + 150 mutation + 100 other secret) + 8 x 300 never
 * throws = 6,000.
 */

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);

/** A secret of the right shape for the case: Standard Webhooks keys are base64, tokens fit a header. */
const secretArb = (c: SchemeCase): fc.Arbitrary<string> => {
  if (c.newSecret().startsWith('whsec_'))
    return fc.uint8Array({ minLength: 1, maxLength: 64 }).map((b) => `whsec_${Buffer.from(b).toString('base64')}`);
  if (c.scheme === 'gitlab') return fc.stringMatching(/^[A-Za-z0-9_.~-]{1,64}$/);
  return fc.string({ unit: 'binary', minLength: 1, maxLength: 64 });
};

/** HMAC pads short keys with zero bytes, so `k` and `k\0` are the same key: compare keys, not strings. */
const keyBytes = (secret: string) => {
  const bytes = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(enc(secret));
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  return bytes.subarray(0, end).toString('hex');
};

const run = (c: SchemeCase, body: Uint8Array, headers: Record<string, string>, secret: string | undefined, now: number) =>
  verifierFor(c.scheme).verify({ body, headers: new Headers(headers), secret, now });

const body = fc.uint8Array({ maxLength: 2048 });
/** Signed-at offsets within each case's limit (or anything, for schemes without one). */
const offset = (c: SchemeCase) => {
  const limit = c.toleranceMs ?? 30 * 86_400_000;
  return fc.integer({ min: -limit + 1000, max: limit - 1000 });
};

describe.each(CASES)('$name', (c) => {
  it('sign then verify succeeds within the age limit', async () => {
    await fc.assert(
      fc.asyncProperty(body, secretArb(c), offset(c), async (payload, secret, delta) => {
        const signed = c.sign(payload, secret, NOW + delta);
        expect((await run(c, signed.body, signed.headers, secret, NOW)).ok).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it.runIf(c.coversBody)('fails for any single-byte mutation of the body', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 2048 }),
        secretArb(c),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        async (payload, secret, at, delta) => {
          const signed = c.sign(payload, secret, NOW);
          const mutated = signed.body.slice();
          const i = at % mutated.length;
          mutated[i] = (mutated[i]! + delta) & 0xff;
          expect((await run(c, mutated, signed.headers, secret, NOW)).ok).toBe(false);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('fails for any different secret', async () => {
    await fc.assert(
      fc.asyncProperty(body, secretArb(c), secretArb(c), async (payload, secret, other) => {
        fc.pre(keyBytes(secret) !== keyBytes(other));
        const signed = c.sign(payload, secret, NOW);
        expect((await run(c, signed.body, signed.headers, other, NOW)).ok).toBe(false);
      }),
      { numRuns: 100 },
    );
  });
});

/** Every header any scheme reads, so arbitrary values reach every parser. */
const HEADER_NAMES = [
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'svix-id',
  'svix-timestamp',
  'svix-signature',
  'stripe-signature',
  'x-hub-signature-256',
  'x-slack-signature',
  'x-slack-request-timestamp',
  'sentry-hook-signature',
  'linear-signature',
  'x-shopify-hmac-sha256',
  'x-gitlab-token',
  'idempotency-key',
];

/** Header values a Fetch `Headers` can hold (Latin-1 without NUL, CR, LF), biased toward the schemes' own shapes. */
const headerValue = fc
  .oneof(
    fc.string({ unit: 'binary' }),
    fc.tuple(fc.constantFrom('t=', 'v1,', 'v1=', 'sha256=', 'v0=', 'v0:', ',', ' ', '='), fc.string()).map(([a, b]) => a + b),
    fc
      .array(fc.constantFrom('t=1748779200', 'v1=00', 'v1,AAAA', 'sha256=ab', ',', ' ', '0'), { maxLength: 8 })
      .map((parts) => parts.join('')),
  )
  .map((v) => v.replace(/[^\x01-\x09\x0b\x0c\x0e-\xff]/g, '?'));

describe('verify never throws', () => {
  it.each(SIGNATURE_SCHEMES)('%s, on arbitrary headers, bodies, secrets and clocks', async (scheme) => {
    const verifier = verifierFor(scheme);
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom(...HEADER_NAMES), headerValue),
        fc.uint8Array({ maxLength: 512 }),
        fc.option(fc.string({ unit: 'binary' }), { nil: undefined }),
        fc.oneof(fc.integer(), fc.double()),
        async (headers, payload, secret, now) => {
          const result = await verifier.verify({ body: payload, headers: new Headers(headers), secret, now });
          expect(typeof result.ok).toBe('boolean');
          if (!result.ok) expect(typeof result.reason).toBe('string');
        },
      ),
      { numRuns: 300 },
    );
  });
});
