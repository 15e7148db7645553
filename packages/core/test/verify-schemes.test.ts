import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifierFor } from '../src/verify/registry.js';
import type { VerifyResult } from '../src/verify/verifier.js';
import { CASES, enc, type SchemeCase } from './support/signers.js';

/**
 * The same battery for every scheme (and both gitlab modes), against the independent node:crypto
 * signers of support/signers.ts. Per-provider interop and pinned vectors: verify-interop.test.ts.
 */

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const JSON_BODY = enc('{"id":"evt_1NqX","type":"ping","data":{"n":1,"s":"h\u00e9llo"}}');
/** Invalid UTF-8: a lone continuation byte, an overlong lead, a truncated sequence, a BOM-ish pair. */
const INVALID_UTF8 = new Uint8Array([0x7b, 0x80, 0xc0, 0xaf, 0xe2, 0x82, 0xff, 0xfe, 0xed, 0xa0, 0x80, 0x7d]);

const verify = (c: SchemeCase, body: Uint8Array, headers: Record<string, string>, secret: string | undefined, now = NOW) =>
  verifierFor(c.scheme).verify({ body, headers: new Headers(headers), secret, now });

const expectRejected = (result: VerifyResult, secret?: string) => {
  expect(result.ok).toBe(false);
  if (!result.ok) {
    expect(result.reason).toMatch(/^[\w -]+$/);
    if (secret) expect(result.reason).not.toContain(secret);
  }
};

describe.each(CASES)('$name', (c) => {
  const secret = c.newSecret();

  it('accepts the provider signature and reports the delivery id', async () => {
    const signed = c.sign(JSON_BODY, secret, NOW);
    const result = await verify(c, signed.body, signed.headers, secret);
    expect(result).toEqual(c.deliveryId(signed) === undefined ? { ok: true } : { ok: true, deliveryId: c.deliveryId(signed) });
  });

  it('rejects a body with one byte changed', async () => {
    const signed = c.sign(JSON_BODY, secret, NOW);
    for (const at of [0, signed.body.length >> 1, signed.body.length - 1]) {
      const tampered = signed.body.slice();
      tampered[at] = tampered[at]! ^ 0x01;
      const result = await verify(c, tampered, signed.headers, secret);
      if (c.coversBody) expectRejected(result, secret);
      // A plain token says nothing about the body; it is still accepted, which is why GitLab's
      // signing token is the stronger choice (docs/signatures.md).
      else expect(result.ok).toBe(true);
    }
  });

  it('rejects a wrong secret', async () => {
    const signed = c.sign(JSON_BODY, secret, NOW);
    const other = c.newSecret();
    expectRejected(await verify(c, signed.body, signed.headers, other), other);
  });

  it('fails closed while the secret is not supplied', async () => {
    const signed = c.sign(JSON_BODY, secret, NOW);
    expectRejected(await verify(c, signed.body, signed.headers, undefined));
    expectRejected(await verify(c, signed.body, signed.headers, ''));
  });

  it('rejects when any required header is missing, or no header at all', async () => {
    const signed = c.sign(JSON_BODY, secret, NOW);
    for (const name of c.required) {
      const { [name]: _dropped, ...rest } = signed.headers;
      expectRejected(await verify(c, signed.body, rest, secret), secret);
      expectRejected(await verify(c, signed.body, { ...signed.headers, [name]: '' }, secret), secret);
    }
    expectRejected(await verify(c, signed.body, {}, secret), secret);
  });

  it.skipIf(c.scheme === 'gitlab' && !c.coversBody)('accepts when one of several listed signatures is right', async () => {
    const signed = c.sign(JSON_BODY, secret, NOW);
    const several = c.withWrongFirst(signed.headers);
    expect(several).not.toEqual(signed.headers);
    expect((await verify(c, signed.body, several, secret)).ok).toBe(true);
    // The wrong one alone is refused, so acceptance above came from the right one.
    const other = c.newSecret();
    expectRejected(await verify(c, signed.body, c.withWrongFirst(c.sign(JSON_BODY, other, NOW).headers), secret));
  });

  it('works byte-exact on a body that is not valid UTF-8', async () => {
    const signed = c.sign(INVALID_UTF8, secret, NOW);
    expect((await verify(c, signed.body, signed.headers, secret)).ok).toBe(true);
    // Decoding and re-encoding the body (U+FFFD for each bad sequence) would be a different body.
    const reencoded = enc(new TextDecoder().decode(signed.body));
    expect(reencoded).not.toEqual(signed.body);
    if (c.coversBody) expectRejected(await verify(c, reencoded, signed.headers, secret));
  });

  it('works on a 256 KB body', async () => {
    const signed = c.sign(new Uint8Array(randomBytes(262_144)), secret, NOW);
    expect(signed.body.length).toBeGreaterThanOrEqual(262_144);
    expect((await verify(c, signed.body, signed.headers, secret)).ok).toBe(true);
    const tampered = signed.body.slice();
    tampered[200_000] = tampered[200_000]! ^ 0x80;
    if (c.coversBody) expectRejected(await verify(c, tampered, signed.headers, secret));
  });

  const tolerance = c.toleranceMs;
  it.runIf(tolerance !== undefined)('accepts within the age limit either way and rejects beyond it', async () => {
    const limit = tolerance!;
    for (const offset of [limit - 1000, -(limit - 1000)]) {
      const signed = c.sign(JSON_BODY, secret, NOW - offset);
      expect((await verify(c, signed.body, signed.headers, secret)).ok).toBe(true);
    }
    const stale = c.sign(JSON_BODY, secret, NOW - limit - 1000);
    const staleResult = await verify(c, stale.body, stale.headers, secret);
    expectRejected(staleResult, secret);
    expect(staleResult).toMatchObject({ reason: 'timestamp too old' });
    const future = c.sign(JSON_BODY, secret, NOW + limit + 1000);
    expect(await verify(c, future.body, future.headers, secret)).toMatchObject({ ok: false, reason: 'timestamp too far in the future' });
    // A non-finite clock fails closed rather than comparing as "not too old".
    expectRejected(await verify(c, stale.body, stale.headers, secret, Number.NaN));
  });

  it.runIf(tolerance === undefined)('has no age limit', async () => {
    const signed = c.sign(JSON_BODY, secret, NOW);
    expect((await verify(c, signed.body, signed.headers, secret, NOW + 365 * 86_400_000)).ok).toBe(true);
  });
});

describe('malformed timestamps', () => {
  const timestamped = CASES.filter((c) => c.toleranceMs !== undefined && c.scheme !== 'linear');
  const header = (c: SchemeCase) => (c.scheme === 'slack' ? 'x-slack-request-timestamp' : 'webhook-timestamp');

  it.each(['abc', '1e9', '-5', '0x6651', '1.5', '12abc', ' ', '99999999999999999999'])('rejects %j', async (bad) => {
    for (const c of timestamped) {
      const secret = c.newSecret();
      const signed = c.sign(JSON_BODY, secret, NOW);
      const headers =
        c.scheme === 'stripe'
          ? { 'stripe-signature': signed.headers['stripe-signature']!.replace(/^t=\d+/, `t=${bad}`) }
          : { ...signed.headers, [header(c)]: bad };
      expectRejected(await verify(c, signed.body, headers, secret), secret);
    }
  });

  it('linear: rejects a body without a numeric webhookTimestamp even when signed', async () => {
    const linear = CASES.find((c) => c.scheme === 'linear')!;
    const secret = linear.newSecret();
    const github = CASES.find((c) => c.scheme === 'github')!;
    for (const body of ['{"webhookTimestamp":"1748779200000"}', '{"action":"create"}', '[1]', 'not json', '']) {
      const raw = enc(body);
      const sig = github.sign(raw, secret, NOW).headers['x-hub-signature-256']!.slice(7);
      expect(await verify(linear, raw, { 'linear-signature': sig }, secret)).toMatchObject({ ok: false });
    }
  });
});

describe('stripe delivery id', () => {
  const c = CASES.find((x) => x.scheme === 'stripe')!;
  const secret = c.newSecret();
  it.each(['{"id":42}', '{"id":""}', '[{"id":"evt_1"}]', 'null', '{"nested":{"id":"evt_1"}}', '{bad json', '{"__proto__":{"id":"x"}}'])(
    'is absent, never thrown, for %s',
    async (body) => {
      const signed = c.sign(enc(body), secret, NOW);
      expect(await verify(c, signed.body, signed.headers, secret)).toEqual({ ok: true });
    },
  );
});

describe('gitlab modes', () => {
  const [signing, token] = CASES.filter((c) => c.scheme === 'gitlab') as [SchemeCase, SchemeCase];

  it('uses Standard Webhooks whenever webhook-signature is present, even beside a right token', async () => {
    const secret = signing.newSecret();
    const signed = signing.sign(JSON_BODY, secret, NOW);
    const bad = signing.withWrongFirst(signed.headers);
    bad['webhook-signature'] = bad['webhook-signature']!.split(' ')[0]!;
    expectRejected(await verify(signing, JSON_BODY, { ...bad, 'x-gitlab-token': secret }, secret));
  });

  it('falls back to webhook-id as delivery id without Idempotency-Key', async () => {
    const secret = signing.newSecret();
    const { 'idempotency-key': _key, ...headers } = signing.sign(JSON_BODY, secret, NOW).headers;
    expect(await verify(signing, JSON_BODY, headers, secret)).toEqual({ ok: true, deliveryId: 'wh_9' });
  });

  it('compares the token exactly: prefix, suffix and case all fail', async () => {
    const secret = token.newSecret();
    for (const wrong of [secret.slice(0, -1), `${secret}x`, secret.toUpperCase() === secret ? `${secret}a` : secret.toUpperCase()]) {
      expectRejected(await verify(token, JSON_BODY, { 'x-gitlab-token': wrong }, secret), secret);
    }
  });
});
