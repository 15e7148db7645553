import { createServer, request as httpRequest, type Server } from 'node:http';
import { createAgentRunHandler } from '@agentrun/core';
import { createNodeListener } from '@agentrun/node';
import { createMemoryStore } from '@agentrun/store-memory';
import { closeServer, listen } from '@agentrun/test-utils/servers';
import { afterAll, beforeAll, expect, it } from 'vitest';

// The answers the Node bridge gives itself (a path agentrun does not own, a method fetch cannot
// carry) carry x-request-id like core's, also in the problem body (docs/embedding.md,
// "Request ids").

let server: Server;
let origin = '';

beforeAll(async () => {
  server = createServer(createNodeListener(createAgentRunHandler({ store: createMemoryStore() })));
  origin = await listen(server);
});
afterAll(() => closeServer(server));

/** node:http, which sends any method (fetch refuses TRACE). */
const send = (method: string, path: string, headers: Record<string, string>) =>
  new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
    const url = new URL(origin + path);
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });

it('answers a path it does not own with a 404 problem carrying the id (and no body for HEAD)', async () => {
  const get = await send('GET', '/nowhere', { 'x-request-id': 'node-1' });
  expect([get.status, get.headers['x-request-id']]).toEqual([404, 'node-1']);
  expect(JSON.parse(get.text)).toMatchObject({ status: 404, request_id: 'node-1' });
  const head = await send('HEAD', '/nowhere', { 'x-request-id': 'node-2' });
  expect([head.status, head.headers['x-request-id'], head.text]).toEqual([404, 'node-2', '']);
  expect(head.headers['content-length']).toBe(String(Buffer.byteLength(get.text.replace('node-1', 'node-2'))));
});

it('answers a method fetch cannot carry (TRACE) with a 405 problem carrying the id and the path’s Allow', async () => {
  const res = await send('TRACE', '/api/v1/agent/runs', { 'x-request-id': 'node-3' });
  expect([res.status, res.headers['x-request-id'], res.headers.allow]).toEqual([405, 'node-3', 'POST, GET, HEAD']);
  expect(JSON.parse(res.text)).toMatchObject({ status: 405, request_id: 'node-3' });
  const run = await send('TRACE', '/api/v1/agent/run', {});
  expect([run.status, run.headers.allow]).toEqual([405, 'POST']);
  // A path agentrun has no route for is a 404 whatever the method.
  expect((await send('TRACE', '/api/v1/nowhere', {})).status).toBe(404);
});

it('generates an id when the caller’s is not usable', async () => {
  const res = await send('GET', '/nowhere', { 'x-request-id': 'has space' });
  expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(JSON.parse(res.text)).toMatchObject({ request_id: res.headers['x-request-id'] });
});
