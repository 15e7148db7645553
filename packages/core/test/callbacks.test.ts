import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { callbackUrlProblem, isPrivateAddress } from '../src/callbacks/address-policy.js';
import { callbackMessage } from '../src/callbacks/message.js';
import { DEFAULT_CALLBACK_POLICY, nextAttemptAfterFailure, shouldDisable } from '../src/callbacks/policy.js';
import { fetchCallbackSender } from '../src/callbacks/sender.js';
import { generateStandardWebhooksSecret } from '../src/control/generated-secrets.js';
import { defaultHmac } from '../src/verify/crypto.js';
import { standardWebhooksVerifier } from '../src/verify/standard-webhooks.js';
import { signStandardWebhooks } from '../src/verify/standard-webhooks-sign.js';

describe('signing callbacks with Standard Webhooks', () => {
  it('signs what the standardwebhooks library and our own verifier accept, and nothing else', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !/\s/.test(s)),
        fc.string({ maxLength: 200 }),
        fc.integer({ min: 1_600_000_000, max: 2_000_000_000 }),
        async (id, body, seconds) => {
          const secret = generateStandardWebhooksSecret();
          const headers = await signStandardWebhooks(defaultHmac, secret, id, seconds, body);
          const now = seconds * 1000;
          const library = new Webhook(secret);
          // The library checks the timestamp against the real clock; ours takes `now`.
          expect(library.sign(id, new Date(now), body)).toBe(headers['webhook-signature']);
          const ours = await standardWebhooksVerifier().verify({
            body: new TextEncoder().encode(body),
            headers: new Headers({ ...headers }),
            secret,
            now,
          });
          expect(ours).toEqual({ ok: true, deliveryId: id });
          const tampered = await standardWebhooksVerifier().verify({
            body: new TextEncoder().encode(`${body}x`),
            headers: new Headers({ ...headers }),
            secret,
            now,
          });
          expect(tampered.ok).toBe(false);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('is verified by standardwebhooks at the current time', async () => {
    const secret = generateStandardWebhooksSecret();
    const body = JSON.stringify({ type: 'run.state_changed', data: { run_id: 'r1' } });
    const headers = await signStandardWebhooks(defaultHmac, secret, 'cbd_1', Date.now() / 1000, body);
    expect(new Webhook(secret).verify(body, { ...headers })).toMatchObject({ type: 'run.state_changed' });
    expect(() => new Webhook(generateStandardWebhooksSecret()).verify(body, { ...headers })).toThrow();
  });

  it('refuses a secret that is not base64', async () => {
    await expect(signStandardWebhooks(defaultHmac, 'whsec_not base64!', 'id', 1, '')).rejects.toThrow(TypeError);
  });
});

describe('where callbacks may go', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.0.0.1', true],
    ['172.16.5.4', true],
    ['172.32.0.1', false],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['224.0.0.1', true],
    ['8.8.8.8', false],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fd00::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:8.8.8.8', false],
    ['[::1]', true],
    ['2001:4860:4860::8888', false],
    // Forms that carry an IPv4 address, as private as it; NAT64's local-use prefix always.
    ['::127.0.0.1', true],
    ['::7f00:1', true],
    ['::8.8.8.8', false],
    ['::ffff:0:10.0.0.1', true],
    ['64:ff9b::169.254.169.254', true],
    ['[64:ff9b::a9fe:a9fe]', true],
    ['64:ff9b::8.8.8.8', false],
    ['64:ff9b:1::8.8.8.8', true],
    ['2002:a9fe:a9fe::1', true],
    ['2002:808:808::1', false],
    ['fec0::1', true],
    ['example.com', undefined],
    ['1.2.3', undefined],
  ])('%s private: %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });

  it('every address in 10/8, 127/8 and 192.168/16 is private, in v4 and v4-mapped v6', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('10', '127', '192.168'),
        fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 3, maxLength: 3 }),
        (head, rest) => {
          const address = [...head.split('.'), ...rest].slice(0, 4).join('.');
          expect(isPrivateAddress(address)).toBe(true);
          expect(isPrivateAddress(`::ffff:${address}`)).toBe(true);
        },
      ),
    );
  });

  it('checks URLs: http(s) only, no credentials, no private literal or localhost unless allowed', () => {
    expect(callbackUrlProblem('https://hooks.example.com/x', false)).toBeUndefined();
    expect(callbackUrlProblem('ftp://hooks.example.com/x', false)).toMatch(/http or https/);
    expect(callbackUrlProblem('https://a:b@hooks.example.com/x', false)).toMatch(/credentials/);
    expect(callbackUrlProblem('http://localhost:3000/x', false)).toMatch(/private/);
    expect(callbackUrlProblem('http://LOCALHOST.:3000/x', false)).toMatch(/private/);
    expect(callbackUrlProblem('http://a.localhost../x', false)).toMatch(/private/);
    expect(callbackUrlProblem('http://[::127.0.0.1]:3000/x', false)).toMatch(/private/);
    expect(callbackUrlProblem('http://[64:ff9b::169.254.169.254]/x', false)).toMatch(/private/);
    expect(callbackUrlProblem('http://[64:ff9b::8.8.8.8]/x', false)).toBeUndefined();
    expect(callbackUrlProblem('http://localhost.example.com/x', false)).toBeUndefined();
    expect(callbackUrlProblem('http://127.0.0.1:3000/x', false)).toMatch(/private/);
    expect(callbackUrlProblem('http://127.0.0.1:3000/x', true)).toBeUndefined();
    expect(callbackUrlProblem(`https://example.com/${'a'.repeat(3000)}`, false)).toMatch(/at most/);
  });
});

describe('retries', () => {
  const policy = { ...DEFAULT_CALLBACK_POLICY, maxAttempts: 8, windowMs: 3_600_000, baseDelayMs: 1000, maxDelayMs: 60_000 };

  it('waits a uniform delay up to base × 2^(n-1), capped, within the window; gives up after the attempts or past the window', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 7 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (n, r) => {
        const now = 1_000_000;
        const next = nextAttemptAfterFailure(policy, n, now, now, () => r);
        const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (n - 1));
        expect(next).toBeGreaterThanOrEqual(now);
        expect(next).toBeLessThan(now + cap + 1);
      }),
    );
    expect(nextAttemptAfterFailure(policy, 8, 0, 0, () => 0)).toBeUndefined();
    expect(nextAttemptAfterFailure(policy, 1, 0, policy.windowMs, () => 0.9)).toBeUndefined();
  });

  it('disables an endpoint failing for disableAfterMs', () => {
    expect(shouldDisable(policy, 0, policy.disableAfterMs - 1)).toBe(false);
    expect(shouldDisable(policy, 0, policy.disableAfterMs)).toBe(true);
  });
});

describe('the fetch sender', () => {
  const request = { url: 'https://hooks.example.com/x', headers: { 'webhook-id': 'a' }, body: '{}', timeoutMs: 1000 };

  it('follows no redirect and reports the status', async () => {
    const seen: RequestInit[] = [];
    const sender = fetchCallbackSender({
      fetch: async (_url, init) => {
        seen.push(init ?? {});
        return new Response('moved', { status: 301, headers: { location: 'http://169.254.169.254/' } });
      },
    });
    expect(await sender.send(request)).toEqual({ status: 301 });
    expect(seen[0]).toMatchObject({ method: 'POST', redirect: 'manual', body: '{}' });
  });

  it('refuses a name resolving to a private address without sending, unless private addresses are allowed', async () => {
    let sent = 0;
    const fetch = async () => {
      sent++;
      return new Response(null, { status: 204 });
    };
    const resolve = async () => ['93.184.216.34', '10.0.0.5'];
    expect(await fetchCallbackSender({ fetch, resolve }).send(request)).toEqual({ error: expect.stringMatching(/private address/) });
    expect(await fetchCallbackSender({ fetch }).send({ ...request, url: 'http://127.0.0.1/x' })).toEqual({
      error: expect.stringMatching(/refused/),
    });
    expect(sent).toBe(0);
    expect(await fetchCallbackSender({ fetch, resolve, allowPrivateAddresses: true }).send(request)).toEqual({ status: 204 });
  });

  it('classifies each resolved address by the IPv4 address its form carries (mapped, compatible, translated, NAT64, 6to4)', async () => {
    let sent = 0;
    const fetch = async () => {
      sent++;
      return new Response(null, { status: 204 });
    };
    for (const address of ['::ffff:127.0.0.1', '::7f00:1', '::ffff:0:a00:1', '64:ff9b::a9fe:a9fe', '64:ff9b:1::1', '2002:c0a8:101::1'])
      expect(await fetchCallbackSender({ fetch, resolve: async () => [address] }).send(request), address).toEqual({
        error: 'refused: hooks.example.com resolves to a private address',
      });
    expect(sent).toBe(0);
    for (const address of ['::ffff:93.184.216.34', '64:ff9b::5db8:d822', '2002:5db8:d822::1'])
      expect(await fetchCallbackSender({ fetch, resolve: async () => [address] }).send(request), address).toEqual({ status: 204 });
  });

  it('reports a timeout and a connection error as errors', async () => {
    const hang = fetchCallbackSender({
      fetch: (_url, init) =>
        new Promise((_, reject) => init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))),
    });
    expect(await hang.send({ ...request, timeoutMs: 5 })).toEqual({ error: 'timeout after 5 ms' });
    const broken = fetchCallbackSender({ fetch: async () => Promise.reject(new TypeError('fetch failed')) });
    expect(await broken.send(request)).toEqual({ error: 'fetch failed' });
  });
});

describe('the message', () => {
  it('is { type, timestamp, data } with the slim run view', () => {
    expect(
      callbackMessage({
        id: 'cbd_1',
        seq: 1,
        endpointId: 'e',
        teamUid: 't',
        eventType: 'run.state_changed',
        runId: 'r1',
        factoryUid: null,
        fromState: 'INPROGRESS',
        toState: 'FAILED',
        statusMessage: { message: 'tests failed' },
        occurredAt: '2026-01-01T00:00:00.000Z',
        artifact: null,
        status: 'pending',
        attempts: 0,
        roundAttempts: 0,
        windowStartedAt: '2026-01-01T00:00:00.000Z',
        nextAttemptAt: null,
        updatedAt: '2026-01-01T00:00:00.000Z',
      }),
    ).toEqual({
      type: 'run.state_changed',
      timestamp: '2026-01-01T00:00:00.000Z',
      data: {
        run_id: 'r1',
        factory_uid: null,
        from: 'INPROGRESS',
        to: 'FAILED',
        state: 'FAILED',
        status_message: { message: 'tests failed' },
        occurred_at: '2026-01-01T00:00:00.000Z',
      },
    });
  });
});
