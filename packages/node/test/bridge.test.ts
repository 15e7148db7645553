import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createNodeListener, requestOrigin, splitTarget, stripBasePath, toWebHeaders } from '@agentrun/node';
import { type Echo, echoHandler } from '@agentrun/test-utils/echo-handler';
import { rawRequest } from '@agentrun/test-utils/http';
import { expectRunRoundTrip, realCore } from '@agentrun/test-utils/real-core';
import { closeServer, listen } from '@agentrun/test-utils/servers';
import { afterAll, describe, expect, it } from 'vitest';

describe('createNodeListener without basePath', () => {
  const echo = echoHandler();
  const listener = createNodeListener(echo);
  // A host that reads the body itself before handing over, as a body parser would.
  const greedy = (req: IncomingMessage, res: ServerResponse) => {
    req.on('data', () => {});
    req.on('end', () => listener(req, res));
  };
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/greedy/')) {
      req.url = req.url.slice('/greedy'.length);
      return greedy(req, res);
    }
    res.setHeader('set-cookie', 'host=1');
    listener(req, res);
  });
  const origin = listen(server);
  afterAll(() => closeServer(server));

  it('passes the whole path and answers other paths with a 404 problem', async () => {
    const ok = (await (await fetch(`${await origin}/api/v1/echo?x=1`)).json()) as Echo;
    expect(ok).toMatchObject({ path: '/api/v1/echo', search: '?x=1' });
    const res = await fetch(`${await origin}/elsewhere`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(await res.json()).toMatchObject({ status: 404, error: 'not_found', detail: 'no route for /elsewhere' });
  });

  it('answers 500 with a clear problem when the body was already consumed', async () => {
    const res = await fetch(`${await origin}/greedy/api/v1/echo`, { method: 'POST', body: '{"a":1}' });
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    const problem = (await res.json()) as { detail: string };
    expect(problem).toMatchObject({ type: 'urn:agentrun:error:internal_error', status: 500, error: 'internal_error' });
    expect(problem.detail).toContain('mount agentrun before any body parser');
  });

  it('still serves a body-less request after the host drained it', async () => {
    const res = await fetch(`${await origin}/greedy/api/v1/echo`);
    expect(((await res.json()) as Echo).length).toBe(0);
  });

  it('keeps Set-Cookie headers the host already set', async () => {
    const res = await fetch(`${await origin}/api/v1/cookies`);
    expect(res.headers.getSetCookie()).toEqual(['host=1', 'a=1; Path=/; HttpOnly', 'b=2; Path=/; Secure']);
  });

  // agentrun's own handler routes it by method and path alone: 405 with Allow (request-id.test.ts).
  it('hands a method fetch cannot represent (TRACE) to the handler, as far as method and url go', async () => {
    const res = await rawRequest(`${await origin}/api/v1/echo`, { method: 'TRACE' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.toString())).toMatchObject({ method: 'TRACE', path: '/api/v1/echo' });
  });

  it('does not let a hostile Host header move the path', async () => {
    const res = await rawRequest(`${await origin}/api/v1/echo`, { headers: { host: 'evil.example/x?y#' } });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.toString())).toMatchObject({ path: '/api/v1/echo', search: '' });
  });
});

describe('a handler that needs a real Request of a method fetch cannot represent', () => {
  const server = createServer(
    createNodeListener({ owns: () => true, fetch: async (request) => new Response(await request.clone().text()) }),
  );
  const origin = listen(server);
  afterAll(() => closeServer(server));

  it('gets a 501 problem carrying x-request-id, not a 500', async () => {
    const res = await rawRequest(`${await origin}/api/v1/x`, { method: 'TRACE', headers: { 'x-request-id': 'trace-1' } });
    expect([res.status, res.headers['x-request-id']]).toEqual([501, 'trace-1']);
    expect(JSON.parse(res.body.toString())).toMatchObject({ error: 'not_implemented', request_id: 'trace-1' });
  });
});

describe('createNodeListener with basePath', () => {
  const echo = echoHandler();
  const server = createServer(createNodeListener(echo, { basePath: '/agents/' }));
  const origin = listen(server);
  afterAll(() => closeServer(server));

  it('strips the base path and respects segment boundaries', async () => {
    expect(((await (await fetch(`${await origin}/agents/api/v1/echo`)).json()) as Echo).path).toBe('/api/v1/echo');
    expect((await fetch(`${await origin}/agentsX/api/v1/echo`)).status).toBe(404);
    expect((await fetch(`${await origin}/api/v1/echo`)).status).toBe(404);
    expect((await fetch(`${await origin}/agents`)).status).toBe(404);
  });
});

describe('URL and header helpers', () => {
  it('splits request targets, including the absolute form', () => {
    expect(splitTarget('/a/b?c=1')).toEqual({ pathname: '/a/b', search: '?c=1' });
    expect(splitTarget('http://h.example/a?b')).toEqual({ pathname: '/a', search: '?b' });
    expect(splitTarget('*')).toEqual({ pathname: '', search: '' });
  });

  it('strips base paths on segment boundaries', () => {
    expect(stripBasePath('/agents/api/v1', '/agents')).toBe('/api/v1');
    expect(stripBasePath('/agents', '/agents')).toBe('/');
    expect(stripBasePath('/agentsX', '/agents')).toBeUndefined();
    expect(stripBasePath('/AGENTS/api', '/agents')).toBeUndefined();
    expect(stripBasePath('/AGENTS/api', '/agents', { caseInsensitive: true })).toBe('/api');
    expect(stripBasePath('/x', '')).toBe('/x');
  });

  it('builds the origin from a Host header only when it is a plain host', () => {
    const req = (host: string | undefined, encrypted = false) =>
      ({ headers: { host }, socket: { encrypted } }) as unknown as IncomingMessage;
    expect(requestOrigin(req('api.example:8443', true))).toBe('https://api.example:8443');
    expect(requestOrigin(req('[::1]:80'))).toBe('http://[::1]:80');
    expect(requestOrigin(req('a@b'))).toBe('http://localhost');
    expect(requestOrigin(req(undefined))).toBe('http://localhost');
    expect(requestOrigin(req('h'), { protocol: 'https', host: 'proxy.example' })).toBe('https://proxy.example');
  });

  it('skips HTTP/2 pseudo-headers and joins repeated fields', () => {
    const req = { rawHeaders: [':path', '/x', ':authority', 'h', 'Accept', 'a', 'accept', 'b', 'Cookie', 'x=1', 'cookie', 'y=2'] };
    const headers = toWebHeaders(req as unknown as IncomingMessage);
    expect([...headers]).toEqual([
      ['accept', 'a, b'],
      ['cookie', 'x=1; y=2'],
    ]);
  });
});

describe('createNodeListener with the real core handler', () => {
  it('creates a run and reads it back', async () => {
    const { handler, key } = await realCore();
    const server = createServer(createNodeListener(handler, { basePath: '/agents' }));
    try {
      await expectRunRoundTrip(`${await listen(server)}/agents`, key);
    } finally {
      await closeServer(server);
    }
  });
});
