import { rawRequest } from '@agentrun/test-utils/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceServer, startReferenceServer } from '../src/server.js';

// The reference server answers requests Node's parser refuses as every error is answered: a
// problem document with an x-request-id (handleClientErrors, docs/embedding.md).

describe('the reference server and requests Node refuses', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer({ port: 0 });
  });
  afterAll(() => server.close());

  it('answers a header section past the limit with a 431 problem carrying x-request-id', async () => {
    const res = await fetch(`${server.url}/api/v1/agent/runs`, { headers: { 'x-big': 'a'.repeat(20_000) } });
    expect(res.status).toBe(431);
    expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await res.json()).toMatchObject({ status: 431, error: 'headers_too_large', request_id: id });
  });

  it('answers an unknown method with a 501 problem carrying x-request-id', async () => {
    // node:http sends any method token; fetch refuses one it does not know.
    const res = await rawRequest(`${server.url}/api/v1/agent/runs`, { method: 'FOO' });
    expect(res.status).toBe(501);
    expect(JSON.parse(res.body.toString())).toMatchObject({
      status: 501,
      error: 'not_implemented',
      request_id: res.headers['x-request-id'],
    });
  });
});
