import { createServer } from 'node:http';
import { agentrunExpress } from '@agentrun/adapter-express';
import { bridgeContract, LIMIT } from '@agentrun/test-utils/bridge-contract';
import { type Echo, echoHandler } from '@agentrun/test-utils/echo-handler';
import { expectRunRoundTrip, realCore } from '@agentrun/test-utils/real-core';
import { closeServer, listen } from '@agentrun/test-utils/servers';
import express from 'express';
import { afterAll, describe, expect, it } from 'vitest';

describe('agentrunExpress mounted under a prefix', () => {
  let origin = '';
  const parsed = echoHandler();

  bridgeContract(async ({ main, limited }) => {
    const app = express();
    app.get('/agents/health', (_req, res) => {
      res.json({ route: 'before' });
    });
    app.use('/agents', agentrunExpress(main, { maxBodyBytes: LIMIT }));
    app.get('/agents/after', (_req, res) => {
      res.json({ route: 'after' });
    });
    app.use('/limited', agentrunExpress(limited));
    app.post('/json', express.json(), (req, res) => {
      res.json({ got: req.body });
    });
    // The mistake the bridge must catch: a body parser ahead of agentrun.
    app.use('/parsed', express.json(), agentrunExpress(parsed));
    const server = createServer(app);
    origin = await listen(server);
    return { origin, close: () => closeServer(server) };
  });

  it('keeps host routes inside the prefix working, before and after the middleware', async () => {
    expect(await (await fetch(`${origin}/agents/health`)).json()).toEqual({ route: 'before' });
    expect(await (await fetch(`${origin}/agents/after`)).json()).toEqual({ route: 'after' });
  });

  it('keeps host routes outside the prefix and their body parsers working', async () => {
    const res = await fetch(`${origin}/json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":[1,2]}' });
    expect(await res.json()).toEqual({ got: { a: [1, 2] } });
  });

  it('answers 500 with a clear problem when express.json() ran first', async () => {
    const res = await fetch(`${origin}/parsed/api/v1/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'parsed-1' },
      body: '{"prompt":"hi"}',
    });
    expect(res.status).toBe(500);
    // The bridge's own answer carries the request id too (docs/embedding.md, "Request ids").
    expect(res.headers.get('x-request-id')).toBe('parsed-1');
    expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    const problem = (await res.json()) as { detail: string };
    expect(problem).toMatchObject({
      type: 'urn:agentrun:error:internal_error',
      status: 500,
      error: 'internal_error',
      request_id: 'parsed-1',
    });
    expect(problem.detail).toContain('express.json()');
    expect(problem.detail).toContain('mount agentrun before any body parser');
  });

  it('still serves requests a body parser left alone', async () => {
    const get = await fetch(`${origin}/parsed/api/v1/echo`);
    expect(((await get.json()) as Echo).length).toBe(0);
    const other = await fetch(`${origin}/parsed/api/v1/echo`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'raw' });
    expect(((await other.json()) as Echo).length).toBe(3);
  });
});

describe('agentrunExpress mounted at the root', () => {
  const echo = echoHandler();
  const app = express();
  app.use(agentrunExpress(echo));
  app.get('/other', (_req, res) => {
    res.send('host');
  });
  const server = createServer(app);
  const origin = listen(server);
  afterAll(() => closeServer(server));

  it('sees the whole path and falls through for everything else', async () => {
    expect(((await (await fetch(`${await origin}/api/v1/echo`)).json()) as Echo).path).toBe('/api/v1/echo');
    expect(await (await fetch(`${await origin}/other`)).text()).toBe('host');
    expect((await fetch(`${await origin}/missing`)).status).toBe(404);
  });
});

describe('agentrunExpress with the real core handler', () => {
  it('creates a run and reads it back under /agents', async () => {
    const { handler, key } = await realCore();
    const app = express();
    app.use('/agents', agentrunExpress(handler));
    const server = createServer(app);
    try {
      await expectRunRoundTrip(`${await listen(server)}/agents`, key);
    } finally {
      await closeServer(server);
    }
  });
});
