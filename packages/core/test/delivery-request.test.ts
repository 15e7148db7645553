import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { REMOTE_ADDRESS } from '../src/http/remote-address.js';
import { MASKED_VALUE } from '../src/ingress/records.js';
import { MAX_STORED_HEADER_BYTES, MAX_STORED_HEADERS, storedRequest } from '../src/ingress/stored-headers.js';
import { utf8Length } from '../src/util/utf8-length.js';
import { type Harness, manualClock, setup, T0 } from './helpers.js';

// What an accepted delivery keeps of its request (docs/webhooks.md, "What a delivery keeps"):
// secrets masked before the store sees them, within the bounds.

const ALWAYS_SECRET = ['authorization', 'proxy-authorization', 'cookie'];
const NAMED = ['x-acme-check', 'x-proof'];
const NAMES = [...ALWAYS_SECRET, ...NAMED, 'user-agent', 'content-type', 'x-request-id', 'x-github-event', 'x-api-key', 'x-auth-token'];

const secret = fc.stringMatching(/^[A-Za-z0-9+/_-]{16,40}$/);
const plain = fc.stringMatching(/^[!-~]([ -~]{0,60}[!-~])?$/);
const header = (s: string) =>
  fc.tuple(
    fc.oneof(fc.constantFrom(...NAMES), fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/)),
    fc.oneof(
      plain,
      fc.tuple(plain, plain).map(([a, b]) => `${a}${s}${b}`),
    ),
  );

describe('storedRequest', () => {
  it('never keeps the secret, a credential header or a header the verifier names, and stays within its bounds', () => {
    fc.assert(
      fc.property(
        secret.chain((s) => fc.tuple(fc.constant(s), fc.array(header(s), { maxLength: 120 }), fc.boolean())),
        ([s, pairs, named]) => {
          const headers = new Headers();
          for (const [name, value] of pairs) headers.append(name, value);
          const kept = storedRequest(headers, '10.0.0.1', {
            secret: s,
            secretHeaders: named ? NAMED.map((n) => n.toUpperCase()) : undefined,
          });
          for (const [name, value] of kept.headers) {
            expect(value).not.toContain(s);
            if (ALWAYS_SECRET.includes(name) || (named && NAMED.includes(name))) expect(value).toBe(MASKED_VALUE);
            if (/token|key|auth/.test(name)) expect(value).toBe(MASKED_VALUE);
          }
          expect(kept.headers.length).toBeLessThanOrEqual(MAX_STORED_HEADERS);
          expect(kept.headers.reduce((n, [name, value]) => n + utf8Length(name) + utf8Length(value), 0)).toBeLessThanOrEqual(
            MAX_STORED_HEADER_BYTES,
          );
          expect(kept.headers.length + kept.omittedHeaders).toBe([...headers].length);
          expect(kept.remoteAddress).toBe('10.0.0.1');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps what is not secret as sent, in order', () => {
    const headers = new Headers({ 'user-agent': 'curl/8', 'x-github-event': 'push', authorization: 'Bearer abc' });
    expect(storedRequest(headers, undefined, {})).toEqual({
      headers: [
        ['authorization', MASKED_VALUE],
        ['user-agent', 'curl/8'],
        ['x-github-event', 'push'],
      ],
      omittedHeaders: 0,
      remoteAddress: null,
    });
  });
});

describe('a delivery’s request and runs through the API', () => {
  let h: Harness;
  let factory: string;
  const clock = manualClock(T0, 1);
  beforeEach(async () => {
    clock.set(T0);
    h = await setup({ secretKey: Buffer.alloc(32, 9).toString('base64'), clock });
    factory = (await h.json<{ uid: string }>('POST', '/factories', { body: { name: 'Acme' } })).body.uid;
  });

  it('shows the headers masked, where it came from, and its runs: none while pending, then the list or []', async () => {
    const { webhook, secret } = (
      await h.json<{ webhook: { uid: string }; secret: string }>('POST', `/factories/${factory}/webhooks`, { body: { name: 'CI' } })
    ).body;
    await h.json('POST', `/factories/${factory}/automations`, {
      body: {
        name: 'Opened',
        prompt: 'p',
        triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [webhook.uid], payload: { action: ['opened'] } } }],
      },
    });
    const send = async (body: string) => {
      const request = new Request(`http://agentrun.test/webhooks/w/${webhook.uid}`, {
        method: 'POST',
        body,
        headers: { authorization: `Bearer ${secret}`, 'user-agent': 'Hookshot/1', 'x-echo': `was ${secret}`, cookie: 'a=b' },
      });
      Object.defineProperty(request, REMOTE_ADDRESS, { value: '203.0.113.7' });
      const res = await h.handler(request);
      expect(res.status).toBe(202);
      return ((await res.json()) as { delivery_id: string }).delivery_id;
    };
    const opened = await send('{"action":"opened"}');
    const closed = await send('{"action":"closed"}');
    const detail = async (id: string) =>
      (await h.json<Record<string, unknown>>('GET', `/factories/${factory}/webhooks/${webhook.uid}/deliveries/${id}`)).body;

    const pending = await detail(opened);
    expect(pending.run_ids).toBeNull();
    expect(pending.request).toEqual({
      headers: expect.arrayContaining([
        { name: 'authorization', value: MASKED_VALUE },
        { name: 'cookie', value: MASKED_VALUE },
        { name: 'x-echo', value: MASKED_VALUE },
        { name: 'user-agent', value: 'Hookshot/1' },
      ]),
      omitted_headers: 0,
      remote_address: '203.0.113.7',
      user_agent: 'Hookshot/1',
    });
    expect(JSON.stringify(await h.store.deliveries.get(h.principal.team_uid, webhook.uid, opened))).not.toContain(secret);

    expect(await h.evaluated()).toBe(2);
    const runs = (await h.json<{ runs: { run_id: string }[] }>('GET', '/agent/runs?source=WEBHOOK')).body.runs;
    expect(runs).toHaveLength(1);
    expect((await detail(opened)).run_ids).toEqual([runs[0]?.run_id]);
    expect((await detail(closed)).run_ids).toEqual([]);
    const list = (
      await h.json<{ deliveries: { delivery_id: string; run_ids: string[] | null }[] }>(
        'GET',
        `/factories/${factory}/webhooks/${webhook.uid}/deliveries`,
      )
    ).body.deliveries;
    expect(list.map((d) => [d.delivery_id, d.run_ids])).toEqual([
      [closed, []],
      [opened, [runs[0]?.run_id]],
    ]);

    // A resend brought no request, and its runs are known at once.
    const resent = (
      await h.json<{ delivery: { delivery_id: string; run_ids: string[] }; run_ids: string[] }>(
        'POST',
        `/factories/${factory}/webhooks/${webhook.uid}/deliveries/${opened}/resend`,
      )
    ).body;
    expect(resent.delivery.run_ids).toEqual(resent.run_ids);
    expect(resent.run_ids).toHaveLength(1);
    expect((await detail(resent.delivery.delivery_id)).request).toBeNull();
  });
});
