import { agentrunFastify } from '@agentrun/adapter-fastify';
import { bridgeContract, LIMIT } from '@agentrun/test-utils/bridge-contract';
import { type Echo, echoHandler } from '@agentrun/test-utils/echo-handler';
import { expectRunRoundTrip, realCore } from '@agentrun/test-utils/real-core';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';

const start = async (app: FastifyInstance) => app.listen({ port: 0, host: '127.0.0.1' });

describe('agentrunFastify registered with a prefix', () => {
  let origin = '';

  bridgeContract(async ({ main, limited }) => {
    const app = Fastify();
    app.get('/agents/health', async () => ({ route: 'host' }));
    await app.register(agentrunFastify, { handler: main, maxBodyBytes: LIMIT, prefix: '/agents' });
    await app.register(agentrunFastify, { handler: limited, prefix: '/limited' });
    app.post('/json', async (request) => ({ got: request.body }));
    await app.register(
      async (scoped) => {
        scoped.get('/status', async () => ({ route: 'scoped' }));
      },
      { prefix: '/agents/scoped' },
    );
    origin = await start(app);
    return { origin, close: () => app.close() };
  });

  it('keeps host routes inside the prefix working', async () => {
    expect(await (await fetch(`${origin}/agents/health`)).json()).toEqual({ route: 'host' });
    expect(await (await fetch(`${origin}/agents/scoped/status`)).json()).toEqual({ route: 'scoped' });
  });

  it('does not leak its pass-through body parser to host routes', async () => {
    const res = await fetch(`${origin}/json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":[1,2]}' });
    expect(await res.json()).toEqual({ got: { a: [1, 2] } });
    const bad = await fetch(`${origin}/json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
    expect(bad.status).toBe(400);
  });

  it("answers paths agentrun does not own with Fastify's own 404", async () => {
    for (const path of ['/agents/nope', '/agents/', '/agents']) {
      const res = await fetch(`${origin}${path}`, { method: 'POST', body: 'x' });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: 'Not Found', statusCode: 404 });
    }
  });

  it('passes JSON bodies through unparsed, even with a JSON content type', async () => {
    const body = '{ "spaced" :  true }';
    const res = await fetch(`${origin}/agents/api/v1/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(((await res.json()) as Echo).length).toBe(body.length);
  });

  it('reads a DELETE body that Fastify does not hand to a parser', async () => {
    const res = await fetch(`${origin}/agents/api/v1/echo`, { method: 'DELETE', body: 'gone' });
    expect(await res.json()).toMatchObject({ method: 'DELETE', length: 4 });
  });
});

describe('agentrunFastify with the host not-found handler, at the root', () => {
  const echo = echoHandler();
  const app = Fastify();
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ host: 'not found' }));
  app.get('/', async () => ({ route: 'root' }));
  app.register(agentrunFastify, { handler: echo });
  const origin = app.ready().then(() => start(app));
  afterAll(() => app.close());

  it('sees the whole path, leaves the host root alone and uses the host 404', async () => {
    expect(((await (await fetch(`${await origin}/api/v1/echo`)).json()) as Echo).path).toBe('/api/v1/echo');
    expect(await (await fetch(`${await origin}/`)).json()).toEqual({ route: 'root' });
    const missing = await fetch(`${await origin}/missing`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ host: 'not found' });
  });
});

describe('agentrunFastify with the real core handler', () => {
  it('creates a run and reads it back under /agents', async () => {
    const { handler, key } = await realCore();
    const app = Fastify();
    await app.register(agentrunFastify, { handler, prefix: '/agents' });
    try {
      await expectRunRoundTrip(`${await start(app)}/agents`, key);
    } finally {
      await app.close();
    }
  });
});
