import { createAgentRun, createApiKey, type Store } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { describe, expect, it } from 'vitest';
import { HOSTILE_STORES, storeFor } from './support/stores.js';

/**
 * A caller sending `POST /callbacks/{id}/rotate-secret` a body it cannot mean: JSON cut short,
 * bytes that are not UTF-8, a NUL, nesting past the parser's limit, JSON that is not `{}`. The
 * route takes no body; like every route without one it answers such a request with a 400 problem
 * and does nothing: the endpoint keeps its secret, and no rotation is audited. With no body, or
 * `{}`, it rotates (docs/callbacks.md, "The API"; docs/management-api.md, "Routes without a body").
 */

const ORIGIN = 'http://agentrun.test';
const BODIES: [string, BodyInit][] = [
  ['truncated JSON', '{"secret":'],
  ['invalid UTF-8', new Uint8Array([0x7b, 0xc3, 0x28, 0x7d])],
  ['a NUL byte', '\0'],
  ['nesting past the limit', `${'['.repeat(1000)}${']'.repeat(1000)}`],
  ['a field', '{"secret":"whsec_chosen-by-the-caller"}'],
  ['an array', '[]'],
];

describe.each(HOSTILE_STORES)('rotate-secret with a body it cannot read, on %s', (kind) => {
  const stores = storeFor(kind, 'rotate_secret');

  const app = async (store: Store) => {
    const agentrun = createAgentRun({ store, secretKey: new Uint8Array(32).fill(5), maintenanceTasks: [] });
    const key = await createApiKey(store.apiKeys, testPrincipal());
    const call = async (method: string, path: string, body?: BodyInit) => {
      const res = await agentrun.fetch(
        new Request(`${ORIGIN}/api/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(body !== undefined ? { body } : {}),
        }),
      );
      return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Record<string, unknown> };
    };
    return { call };
  };

  it('answers each with a 400 problem and keeps the secret; no body and {} rotate', async () => {
    const store = await stores.fresh();
    const { call } = await app(store);
    const created = await call('POST', '/callbacks', JSON.stringify({ url: 'https://hooks.example.com/in' }));
    const id = (created.body.callback as { id: string }).id;
    const sealed = async () => (await store.callbacks.getEndpoint(testPrincipal().team_uid, id))?.secretCiphertext;
    const before = await sealed();
    for (const [what, body] of BODIES) {
      const answer = await call('POST', `/callbacks/${id}/rotate-secret`, body);
      expect({ what, status: answer.status, type: answer.type }).toEqual({
        what,
        status: 400,
        type: expect.stringMatching(/^application\/problem\+json/),
      });
      expect(answer.body).toMatchObject({ status: 400, error: 'invalid_request' });
    }
    expect(await sealed()).toEqual(before);
    const rotations = async () => (await call('GET', '/audit/events?kind=callback.rotated')).body.events as unknown[];
    expect(await rotations()).toEqual([]);

    for (const body of [undefined, '{}']) {
      const rotated = await call('POST', `/callbacks/${id}/rotate-secret`, body);
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).toMatch(/^whsec_/);
    }
    expect(await sealed()).not.toEqual(before);
    expect(await rotations()).toHaveLength(2);
  });
});
