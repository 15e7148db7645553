import { agentrunFastify } from '@agentrun/adapter-fastify';
import { createAgentRunHandler } from '@agentrun/core';
import { answerClientError } from '@agentrun/node';
import { createMemoryStore } from '@agentrun/store-memory';
import { rawExchange } from '@agentrun/test-utils/http';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';

// Fastify answers requests its server's parser refuses itself (its clientErrorHandler); given
// answerClientError, they get agentrun's problem documents with an x-request-id
// (docs/embedding.md, "Requests Node refuses").

let app: FastifyInstance;
let origin = '';

beforeAll(async () => {
  app = Fastify({ clientErrorHandler: answerClientError });
  await app.register(agentrunFastify, { handler: createAgentRunHandler({ store: createMemoryStore() }) });
  origin = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => app.close());

it.each([
  ['an unknown method', 'FOO /api/v1/agent/runs HTTP/1.1\r\nHost: x\r\n\r\n', 501, 'not_implemented'],
  ['a header section past the limit', `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'headers_too_large'],
])('answers %s with a problem carrying x-request-id', async (_, request, status, error) => {
  const res = await rawExchange(origin, request);
  expect([res.status, res.headers['content-type']]).toEqual([status, 'application/problem+json; charset=utf-8']);
  expect(JSON.parse(res.body.toString())).toMatchObject({ status, error, request_id: res.headers['x-request-id'] });
});
