import { describe, expect, it } from 'vitest';
import { HOSTILE_STORES, storeFor } from '../../../test/hostile/support/stores.js';
import { expectProblem, type Harness, setup } from './helpers.js';

// Each route's body limit (docs/management-api.md, "Body limits"; docs/run-api.md, "Sizes
// first"): the management API's bodies 4 MiB, a test-filter's the ingress's limit and 4 KiB (its
// payload is a delivery), the run API's 40 MiB. Over it: a 413 problem+json naming the limit,
// before anything is parsed, the same on every store. `npm run bench -- validation` times them.

const MiB = 1024 * 1024;
const INGRESS = 256 * 1024;

/** A JSON body of exactly `bytes` bytes: `{"payload":{"a":"xxx…"},…}` around `head`. */
const sized = (bytes: number, head: string, tail: string) => `${head}"${'x'.repeat(bytes - head.length - tail.length - 2)}"${tail}`;

describe.each(HOSTILE_STORES)('body limits on %s', (kind) => {
  const stores = storeFor(kind, 'body-limits');

  const harness = async (options: Parameters<typeof setup>[0] = {}) => {
    const h = await setup({ store: await stores.fresh(), secretKey: Buffer.alloc(32, 7).toString('base64'), ...options });
    const factory = (await h.json<{ uid: string }>('POST', '/factories', { body: { name: 'f' } })).body.uid;
    const hook = (await h.json<{ webhook: { uid: string } }>('POST', `/factories/${factory}/webhooks`, { body: { name: 'h' } })).body;
    const automation = await h.json<{ id: string }>('POST', `/factories/${factory}/automations`, {
      body: { name: 'a', prompt: 'p', triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [hook.webhook.uid] } }] },
    });
    expect(automation.status).toBe(201);
    return { h, factory, hook: hook.webhook.uid, testFilter: `/factories/${factory}/automations/${automation.body.id}/test-filter` };
  };
  const post = (h: Harness, path: string, raw: string) =>
    h.call('POST', path, { raw, headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() } });

  it('a test-filter body takes a payload as large as the ingress takes, and no larger', async () => {
    const { h, hook, testFilter } = await harness();
    const head = `{"webhook_uid":"${hook}","payload":{"a":`;
    const fits = await post(h, testFilter, sized(INGRESS + 4096, head, '}}'));
    expect(fits.status).toBe(200);
    const problem = await expectProblem(await post(h, testFilter, sized(INGRESS + 4097, head, '}}')), 413, 'payload_too_large');
    expect(problem.detail).toBe(`the request body is larger than ${INGRESS + 4096} bytes`);
  });

  it("a test-filter's limit follows the ingress's", async () => {
    const { h, hook, testFilter } = await harness({ ingressLimits: { maxBodyBytes: 1000 } });
    const head = `{"webhook_uid":"${hook}","payload":{"a":`;
    expect((await post(h, testFilter, sized(5096, head, '}}'))).status).toBe(200);
    const problem = await expectProblem(await post(h, testFilter, sized(5097, head, '}}')), 413, 'payload_too_large');
    expect(problem.detail).toBe('the request body is larger than 5096 bytes');
  });

  it('the management API refuses a body over 4 MiB before reading it, whatever route', async () => {
    const { h, factory } = await harness();
    const body = sized(4 * MiB + 1, '{"name":', '}');
    for (const [method, path] of [
      ['POST', `/factories/${factory}/automations`],
      ['POST', `/factories/${factory}/apply`],
      ['POST', `/factories/${factory}/webhooks`],
      ['PUT', '/team/secrets/s'],
    ] as const) {
      const problem = await expectProblem(
        await h.call(method, path, { raw: body, headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() } }),
        413,
        'payload_too_large',
      );
      expect(problem.detail).toBe(`the request body is larger than ${4 * MiB} bytes`);
    }
    // At the limit it is read, and refused for what it holds.
    await expectProblem(await post(h, `/factories/${factory}/webhooks`, sized(4 * MiB, '{"name":', '}')), 400, 'invalid_request');
  });

  it("the management API's limit is the run API's when that is smaller", async () => {
    const { h, factory } = await harness({ maxBodyBytes: 2000 });
    const problem = await expectProblem(
      await post(h, `/factories/${factory}/webhooks`, sized(2001, '{"name":', '}')),
      413,
      'payload_too_large',
    );
    expect(problem.detail).toBe('the request body is larger than 2000 bytes');
  });

  it('the run API reads a body over the management limit, a slice at a time, and answers for what it holds', async () => {
    const { h } = await harness();
    const problem = await expectProblem(await post(h, '/agent/run', sized(6 * MiB, '{"prompt":', '}')), 400, 'invalid_request');
    expect(problem.detail).toBe('invalid run request: prompt: at most 100,000 characters');
  }, 30_000);
});
