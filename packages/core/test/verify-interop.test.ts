import { sign as octokitSign, verify as octokitVerify } from '@octokit/webhooks-methods';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhook as SvixWebhook } from 'svix';
import { describe, expect, it } from 'vitest';
import { verifierFor } from '../src/verify/registry.js';
import { enc, hmacBase64, hmacHex, signStandard } from './support/signers.js';

/**
 * Interop with the providers' own libraries (signing with theirs, verifying with ours, and their
 * verifiers accepting our test signers), plus one literal vector per scheme pinned by hand
 * (`openssl dgst -sha256 -hmac …`; slack's, github's and Standard Webhooks' are also the vectors
 * of the providers' own documentation).
 */

const check = (
  scheme: Parameters<typeof verifierFor>[0],
  body: Uint8Array | string,
  headers: Record<string, string>,
  secret: string,
  now: number,
) => verifierFor(scheme).verify({ body: typeof body === 'string' ? enc(body) : body, headers: new Headers(headers), secret, now });

const PAYLOAD = '{"id":"evt_9","type":"invoice.paid","data":{"amount":1200,"note":"d\u00e9j\u00e0 vu"}}';
const NOW = Date.now();

describe('standard-webhooks with standardwebhooks and svix', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

  it('accepts what standardwebhooks signs', async () => {
    const signature = new StandardWebhook(secret).sign('msg_1', new Date(NOW), PAYLOAD);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(NOW / 1000)), 'webhook-signature': signature };
    expect(await check('standard-webhooks', PAYLOAD, headers, secret, NOW)).toEqual({ ok: true, deliveryId: 'msg_1' });
    expect(await check('standard-webhooks', PAYLOAD.replace('1200', '1201'), headers, secret, NOW)).toMatchObject({ ok: false });
    // A secret without the whsec_ prefix is the same key.
    expect((await check('standard-webhooks', PAYLOAD, headers, secret.slice(6), NOW)).ok).toBe(true);
  });

  it('accepts what svix signs, under the svix-* header names', async () => {
    const signature = new SvixWebhook(secret).sign('msg_2', new Date(NOW), PAYLOAD);
    const headers = { 'svix-id': 'msg_2', 'svix-timestamp': String(Math.floor(NOW / 1000)), 'svix-signature': signature };
    expect(await check('standard-webhooks', PAYLOAD, headers, secret, NOW)).toEqual({ ok: true, deliveryId: 'msg_2' });
    expect(await check('gitlab', PAYLOAD, { ...headers, 'webhook-signature': signature }, secret, NOW)).toEqual({
      ok: true,
      deliveryId: 'msg_2',
    });
  });

  it('agrees with standardwebhooks on our test signer, and on the documented vector', async () => {
    const seconds = Math.floor(NOW / 1000);
    const headers = {
      'webhook-id': 'msg_3',
      'webhook-timestamp': String(seconds),
      'webhook-signature': signStandard(secret, 'msg_3', seconds, enc(PAYLOAD)),
    };
    expect(() => new StandardWebhook(secret).verify(PAYLOAD, headers)).not.toThrow();

    const vector = {
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    };
    const at = 1614265330_000;
    expect(await check('standard-webhooks', '{"test": 2432232314}', vector, secret, at)).toEqual({
      ok: true,
      deliveryId: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    });
    expect(await check('standard-webhooks', '{"test": 2432232314}', vector, secret, at + 301_000)).toMatchObject({
      reason: 'timestamp too old',
    });
    expect(await check('gitlab', '{"test": 2432232314}', { ...vector, 'idempotency-key': 'idem-1' }, secret, at)).toEqual({
      ok: true,
      deliveryId: 'idem-1',
    });
  });
});

describe('stripe with stripe', () => {
  const secret = 'whsec_test_secret';

  it('accepts what stripe.webhooks.generateTestHeaderString signs, with the body id as delivery id', async () => {
    const timestamp = Math.floor(NOW / 1000);
    const header = Stripe.webhooks.generateTestHeaderString({ payload: PAYLOAD, secret, timestamp });
    expect(await check('stripe', PAYLOAD, { 'stripe-signature': header }, secret, NOW)).toEqual({ ok: true, deliveryId: 'evt_9' });
    expect(await check('stripe', PAYLOAD, { 'stripe-signature': header }, 'whsec_other', NOW)).toMatchObject({ ok: false });
    expect(await check('stripe', PAYLOAD, { 'stripe-signature': header }, secret, NOW + 301_000)).toMatchObject({
      reason: 'timestamp too old',
    });
  });

  it('agrees with stripe on our test signer, and on a pinned vector', async () => {
    const seconds = Math.floor(NOW / 1000);
    const header = `t=${seconds},v1=${hmacHex(secret, `${seconds}.`, enc(PAYLOAD))}`;
    expect(Stripe.webhooks.constructEvent(PAYLOAD, header, secret).id).toBe('evt_9');

    const vector = 't=1700000000,v1=0c8670ed117751cc551a20e35839447075c42800ea3cf3e8a2fbda99cd1e6edd';
    const body = '{"id":"evt_1","object":"event"}';
    expect(await check('stripe', body, { 'stripe-signature': vector }, secret, 1700000000_000)).toEqual({ ok: true, deliveryId: 'evt_1' });
    expect(
      await check(
        'stripe',
        body,
        { 'stripe-signature': vector.toUpperCase().replace('T=', 't=').replace('V1=', 'v1=') },
        secret,
        1700000000_000,
      ),
    ).toMatchObject({ ok: true });
  });
});

describe('github with @octokit/webhooks-methods', () => {
  const secret = "It's a Secret to Everybody";

  it('accepts what octokit signs, with X-GitHub-Delivery as delivery id', async () => {
    const signature = await octokitSign(secret, PAYLOAD);
    const headers = { 'x-hub-signature-256': signature, 'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958' };
    expect(await check('github', PAYLOAD, headers, secret, NOW)).toEqual({ ok: true, deliveryId: '72d3162e-cc78-11e3-81ab-4c9367dc0958' });
    expect(await check('github', `${PAYLOAD} `, headers, secret, NOW)).toMatchObject({ ok: false });
  });

  it("agrees with octokit on our test signer, and on GitHub's documented vector", async () => {
    expect(await octokitVerify(secret, PAYLOAD, `sha256=${hmacHex(secret, enc(PAYLOAD))}`)).toBe(true);
    const vector = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    expect(await check('github', 'Hello, World!', { 'x-hub-signature-256': vector }, secret, NOW)).toEqual({ ok: true });
  });
});

describe('hand-checked vectors', () => {
  it("slack: Slack's documented request", async () => {
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    const secret = '8f742231b10e8888abcd99yyyzzz85a5';
    const headers = {
      'x-slack-request-timestamp': '1531420618',
      'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    };
    expect(hmacHex(secret, 'v0:1531420618:', enc(body))).toBe(headers['x-slack-signature'].slice(3));
    expect(await check('slack', body, headers, secret, 1531420618_000 + 299_000)).toEqual({ ok: true });
    expect(await check('slack', body, headers, secret, 1531420618_000 + 301_000)).toMatchObject({ reason: 'timestamp too old' });
  });

  it('sentry', async () => {
    const body = '{"action":"created","installation":{"uuid":"7a485448"}}';
    const signature = '9facb724ecff0e980301ec417d96b124f3237489ae6982c55525fdb6c42a4181';
    expect(hmacHex('sentry-client-secret', enc(body))).toBe(signature);
    const headers = { 'sentry-hook-signature': signature, 'request-id': 'req-1' };
    expect(await check('sentry', body, headers, 'sentry-client-secret', NOW)).toEqual({ ok: true, deliveryId: 'req-1' });
    // Hex in either case is the same signature.
    expect((await check('sentry', body, { 'sentry-hook-signature': signature.toUpperCase() }, 'sentry-client-secret', NOW)).ok).toBe(true);
  });

  it('linear', async () => {
    const body = '{"action":"create","type":"Issue","webhookTimestamp":1700000000000}';
    const signature = '91e919dc0fd99df1cae12efef1ca08b082cfa523f101b572ec14ed98863fdf35';
    expect(hmacHex('lin_wh_secret', enc(body))).toBe(signature);
    const headers = { 'linear-signature': signature, 'linear-delivery': 'ld-1' };
    expect(await check('linear', body, headers, 'lin_wh_secret', 1700000000000 + 59_000)).toEqual({ ok: true, deliveryId: 'ld-1' });
    expect(await check('linear', body, headers, 'lin_wh_secret', 1700000000000 + 61_000)).toMatchObject({ reason: 'timestamp too old' });
  });

  it('shopify', async () => {
    const body = '{"id":820982911946154508,"email":"jon@example.com"}';
    const signature = 'vo+n5h/cLxNKGlgJ0Fd1aDzU0aOaajK8Hs9m0hPqWiQ=';
    expect(hmacBase64('shpss_secret', enc(body))).toBe(signature);
    const headers = { 'x-shopify-hmac-sha256': signature, 'x-shopify-event-id': 'ev-1' };
    expect(await check('shopify', body, headers, 'shpss_secret', NOW)).toEqual({ ok: true, deliveryId: 'ev-1' });
    // Unpadded base64 decodes to the same bytes; base64url does not parse.
    expect((await check('shopify', body, { 'x-shopify-hmac-sha256': signature.slice(0, -1) }, 'shpss_secret', NOW)).ok).toBe(true);
    expect(await check('shopify', body, { 'x-shopify-hmac-sha256': signature.replace('+', '-') }, 'shpss_secret', NOW)).toMatchObject({
      ok: false,
    });
  });

  it('gitlab secret token', async () => {
    const headers = { 'x-gitlab-token': 'glwht-Zx9_4kQ', 'idempotency-key': 'f1e2d3' };
    expect(await check('gitlab', '{}', headers, 'glwht-Zx9_4kQ', NOW)).toEqual({ ok: true, deliveryId: 'f1e2d3' });
    expect(await check('gitlab', '{}', headers, 'glwht-Zx9_4kq', NOW)).toEqual({ ok: false, reason: 'token mismatch' });
  });
});
