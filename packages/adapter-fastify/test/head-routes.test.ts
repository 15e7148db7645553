import { agentrunFastify } from '@agentrun/adapter-fastify';
import { createAgentRunHandler, createApiKey } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';

// Fastify registers a HEAD route beside every GET route (exposeHeadRoutes), and agentrun's wildcard
// takes every method, HEAD included. The two must not collide: the host's GET routes keep their own
// HEAD, inside and outside the prefix, and agentrun answers HEAD on its paths (same status and
// headers as GET, no body) with its x-request-id (docs/embedding.md, "Request ids").

let app: FastifyInstance;
let origin = '';
let key = '';

beforeAll(async () => {
  const store = createMemoryStore();
  key = await createApiKey(store.apiKeys, testPrincipal());
  app = Fastify();
  app.get('/health', async () => ({ host: 'outside' }));
  app.get('/agents/health', async () => ({ host: 'inside the prefix' }));
  await app.register(agentrunFastify, { handler: createAgentRunHandler({ store }), prefix: '/agents' });
  origin = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => app.close());

it('keeps the host’s HEAD routes, inside and outside the prefix', async () => {
  for (const path of ['/health', '/agents/health']) {
    const get = await fetch(origin + path);
    const text = await get.text();
    const head = await fetch(origin + path, { method: 'HEAD' });
    expect([path, head.status, head.headers.get('content-length'), head.headers.get('x-request-id')]).toEqual([
      path,
      200,
      String(Buffer.byteLength(text)),
      null,
    ]);
  }
});

it('answers HEAD on agentrun’s paths as GET without a body', async () => {
  const headers = { authorization: `Bearer ${key}`, 'x-request-id': 'head-1' };
  const url = `${origin}/agents/api/v1/agent/runs`;
  const get = await fetch(url, { headers });
  const text = await get.text();
  const head = await fetch(url, { method: 'HEAD', headers });
  expect(head.status).toBe(200);
  expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
  expect(head.headers.get('x-request-id')).toBe('head-1');
  expect(await head.text()).toBe('');
  const unauthenticated = await fetch(url, { method: 'HEAD' });
  expect([unauthenticated.status, await unauthenticated.text()]).toEqual([401, '']);
  expect(unauthenticated.headers.get('x-request-id')).toEqual(expect.any(String));
});
