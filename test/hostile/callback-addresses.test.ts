import { createAgentRun, createApiKey, type Store } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { describe, expect, it } from 'vitest';
import { HOSTILE_STORES, storeFor } from './support/stores.js';

/**
 * A team registering callbacks that reach the server's own network through the spellings an
 * address check misses: `LOCALHOST.` (a fully qualified name, any case), NAT64's `64:ff9b::/96`
 * (on a NAT64 network `[64:ff9b::169.254.169.254]` is the cloud metadata address) and its
 * local-use `64:ff9b:1::/48`, IPv4-compatible `[::127.0.0.1]`, 6to4 `2002::/16`. Each is refused
 * with a 400 problem at registration and on a change of URL, and a name that resolves to one of
 * them is refused at each send without a request (docs/callbacks.md, "Where callbacks may go").
 */

const ORIGIN = 'http://agentrun.test';
const REFUSED_URLS = [
  'http://LOCALHOST.:8080/hook',
  'http://localhost../hook',
  'https://hooks.LocalHost./hook',
  'http://[64:ff9b::169.254.169.254]/latest/meta-data',
  'http://[64:ff9b::a9fe:a9fe]/latest/meta-data',
  'http://[64:ff9b::127.0.0.1]:8080/hook',
  'http://[64:ff9b:1::a00:1]/hook',
  'http://[::127.0.0.1]:8080/hook',
  'http://[::7f00:1]:8080/hook',
  'http://[::ffff:0:169.254.169.254]/hook',
  'http://[2002:a9fe:a9fe::1]/hook',
  'http://[fec0::1]/hook',
];
/** What a resolver may answer for a name: each an address inside the server's network. */
const PRIVATE_ANSWERS = ['64:ff9b::a9fe:a9fe', '64:ff9b:1::a00:1', '::7f00:1', '::ffff:a9fe:a9fe', '::ffff:0:7f00:1', '2002:7f00:1::'];

describe.each(HOSTILE_STORES)('callbacks aimed at the server’s own network, on %s', (kind) => {
  const stores = storeFor(kind, 'callback_addresses');

  const app = async (store: Store, resolve?: (hostname: string) => Promise<readonly string[]>) => {
    const agentrun = createAgentRun({
      store,
      secretKey: new Uint8Array(32).fill(7),
      maintenanceTasks: [],
      ...(resolve ? { callbacks: { resolve } } : {}),
    });
    const key = await createApiKey(store.apiKeys, testPrincipal());
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await agentrun.fetch(
        new Request(`${ORIGIN}/api/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        }),
      );
      return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Record<string, unknown> };
    };
    return { agentrun, call };
  };

  it('refuses each spelling at registration and on a change of URL, with a 400 problem, and stores nothing', async () => {
    const { call } = await app(await stores.fresh());
    const kept = await call('POST', '/callbacks', { url: 'https://hooks.example.com/in' });
    expect(kept.status).toBe(201);
    const id = (kept.body.callback as { id: string }).id;
    for (const url of REFUSED_URLS) {
      for (const answer of [await call('POST', '/callbacks', { url }), await call('PATCH', `/callbacks/${id}`, { url })]) {
        expect({ url, status: answer.status, type: answer.type }).toEqual({
          url,
          status: 400,
          type: expect.stringMatching(/^application\/problem\+json/),
        });
        expect(answer.body.detail).toMatch(/private, loopback or link-local/);
      }
    }
    const listed = await call('GET', '/callbacks');
    expect((listed.body.callbacks as { url: string }[]).map((c) => c.url)).toEqual(['https://hooks.example.com/in']);
  });

  it('refuses at each send a name that resolves to one of them, without a request', async () => {
    for (const address of PRIVATE_ANSWERS) {
      const resolved: string[] = [];
      const { agentrun, call } = await app(await stores.fresh(), async (hostname) => {
        resolved.push(hostname);
        return [address];
      });
      const created = await call('POST', '/callbacks', { url: 'https://hooks.example.test/in', event_types: ['run.created'] });
      const id = (created.body.callback as { id: string }).id;
      await agentrun.services.runs.create(testPrincipal(), { prompt: 'a run to tell of' });
      await agentrun.maintenance.runAll();
      const { deliveries } = (await call('GET', `/callbacks/${id}/deliveries`)).body as {
        deliveries: { attempts: { error: string | null; status_code: number | null }[] }[];
      };
      expect(resolved).toEqual(['hooks.example.test']);
      expect({ address, attempts: deliveries[0]?.attempts.map((a) => [a.status_code, a.error]) }).toEqual({
        address,
        attempts: [[null, 'refused: hooks.example.test resolves to a private address']],
      });
    }
  });
});
