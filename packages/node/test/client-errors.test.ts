import { createServer, type Server } from 'node:http';
import { createAgentRunHandler } from '@agentrun/core';
import { createNodeListener, handleClientErrors } from '@agentrun/node';
import { createMemoryStore } from '@agentrun/store-memory';
import { type RawResponse, rawExchange } from '@agentrun/test-utils/http';
import { closeServer, listen } from '@agentrun/test-utils/servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Requests Node's parser refuses never reach the listener; with handleClientErrors they are
// answered as every agentrun error is: a problem document with an x-request-id
// (../shared/spec/contract.md §2, docs/embedding.md "Requests Node refuses").

const serve = async (withHelper: boolean): Promise<{ server: Server; origin: string }> => {
  const server = createServer(createNodeListener(createAgentRunHandler({ store: createMemoryStore() })));
  if (withHelper) handleClientErrors(server);
  return { server, origin: await listen(server) };
};

const request = (head: string) => `${head}\r\nHost: x\r\n\r\n`;
const OVERSIZED = request(`GET /api/v1/agent/runs HTTP/1.1\r\nX-Big: ${'a'.repeat(20_000)}`);
const CONTROL_CHARACTER = request('GET /api/v1/agent/runs HTTP/1.1\r\nX-Bad: a\x01b');
const UNKNOWN_METHOD = request('FOO /api/v1/agent/runs HTTP/1.1');

const expectProblem = (res: RawResponse, status: number, error: string) => {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.headers.connection).toBe('close');
  expect(Number(res.headers['content-length'])).toBe(res.body.byteLength);
  const body = JSON.parse(res.body.toString());
  expect(body).toMatchObject({ status, error, request_id: res.headers['x-request-id'] });
  return body as { detail: string };
};

describe('handleClientErrors', () => {
  let server: Server;
  let origin = '';
  beforeAll(async () => {
    ({ server, origin } = await serve(true));
  });
  afterAll(() => closeServer(server));

  it('answers a header section past the limit with a 431 problem', async () => {
    expect(expectProblem(await rawExchange(origin, OVERSIZED), 431, 'headers_too_large').detail).toMatch(/max-http-header-size/);
  });

  it('answers a control character in a header value with a 400 problem', async () => {
    expectProblem(await rawExchange(origin, CONTROL_CHARACTER), 400, 'invalid_request');
  });

  it('answers a method the parser does not know with a 501 problem', async () => {
    expectProblem(await rawExchange(origin, UNKNOWN_METHOD), 501, 'not_implemented');
  });

  it('still serves well-formed requests', async () => {
    const res = await rawExchange(origin, request('GET /api/v1/agent/runs HTTP/1.1\r\nConnection: close'));
    expect(res.status).toBe(401);
    expect(res.headers['x-request-id']).toBeTruthy();
  });
});

describe('without it', () => {
  let server: Server;
  let origin = '';
  beforeAll(async () => {
    ({ server, origin } = await serve(false));
  });
  afterAll(() => closeServer(server));

  it('Node answers with a bare status line: no problem, no x-request-id', async () => {
    const res = await rawExchange(origin, OVERSIZED);
    expect(res.status).toBe(431);
    expect(res.headers['x-request-id']).toBeUndefined();
    expect(res.body.byteLength).toBe(0);
  });
});
