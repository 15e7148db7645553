import { Writable } from 'node:stream';
import { agentrunFastify } from '@agentrun/adapter-fastify';
import { createAgentRun, createApiKey } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';

// The Fastify adapter hands agentrun the request's own pino logger (request.log), so its lines
// carry Fastify's reqId and go where the host's logs go (docs/operations.md, "Logging").
describe('agentrunFastify logging', () => {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const text of String(chunk).split('\n')) if (text) lines.push(JSON.parse(text));
      done();
    },
  });
  const store = createMemoryStore();
  const failing = { ...store, runs: { ...store.runs, list: async () => Promise.reject(new Error('store exploded')) } };
  const app = Fastify({ logger: { level: 'debug', stream } });
  afterAll(() => app.close());

  it("logs each request and an unexpected error through request.log, with Fastify's reqId and agentrun's request id", async () => {
    await app.register(agentrunFastify, { handler: createAgentRun({ store: failing }), prefix: '/agents' });
    const origin = await app.listen({ port: 0, host: '127.0.0.1' });
    const key = await createApiKey(store.apiKeys, testPrincipal());
    const failed = await fetch(`${origin}/agents/api/v1/agent/runs`, { headers: { authorization: `Bearer ${key}` } });
    expect(failed.status).toBe(500);
    const denied = await fetch(`${origin}/agents/api/v1/agent/runs`);
    expect(denied.status).toBe(401);
    const ready = await fetch(`${origin}/agents/readyz`);
    expect(ready.status).toBe(200);

    const ours = lines.filter((l) => l.msg === 'request');
    expect(ours.map((l) => [l.operation, l.status, l.level])).toEqual([
      ['listRuns', 500, 30],
      ['listRuns', 401, 30],
      ['getReadiness', 200, 20],
    ]);
    for (const l of ours) expect(l).toMatchObject({ reqId: expect.anything(), request_id: expect.any(String) });
    expect(ours[1]?.request_id).toBe(denied.headers.get('x-request-id'));
    // The failed store call, at error, with its request id; the key never appears.
    const errors = lines.filter((l) => l.msg === 'unexpected error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ level: 50, request_id: failed.headers.get('x-request-id'), err: { message: 'store exploded' } });
    expect(JSON.stringify(lines)).not.toContain(key);
  });
});

// A logger above info prints no request line, so none is gathered; errors still reach it.
describe('agentrunFastify logging above info', () => {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const text of String(chunk).split('\n')) if (text) lines.push(JSON.parse(text));
      done();
    },
  });
  const store = createMemoryStore();
  const failing = { ...store, runs: { ...store.runs, list: async () => Promise.reject(new Error('store exploded')) } };
  const app = Fastify({ logger: { level: 'warn', stream } });
  afterAll(() => app.close());

  it('logs the unexpected error through request.log and no request line', async () => {
    await app.register(agentrunFastify, { handler: createAgentRun({ store: failing }), prefix: '/agents' });
    const origin = await app.listen({ port: 0, host: '127.0.0.1' });
    const key = await createApiKey(store.apiKeys, testPrincipal());
    const failed = await fetch(`${origin}/agents/api/v1/agent/runs`, { headers: { authorization: `Bearer ${key}` } });
    expect(failed.status).toBe(500);
    expect((await fetch(`${origin}/agents/readyz`)).status).toBe(200);
    expect(lines.filter((l) => l.msg === 'request')).toEqual([]);
    const errors = lines.filter((l) => l.msg === 'unexpected error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ level: 50, reqId: expect.anything(), request_id: failed.headers.get('x-request-id') });
  });
});

// Without a logger Fastify hands out empty functions; an error then still goes there, not to the console.
describe('agentrunFastify without a logger', () => {
  it('sends an unexpected error to request.log, not to the console', async () => {
    const store = createMemoryStore();
    const failing = { ...store, runs: { ...store.runs, list: async () => Promise.reject(new Error('store exploded')) } };
    const app = Fastify();
    const printed: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void printed.push(args);
    try {
      await app.register(agentrunFastify, { handler: createAgentRun({ store: failing }), prefix: '/agents' });
      const origin = await app.listen({ port: 0, host: '127.0.0.1' });
      const key = await createApiKey(store.apiKeys, testPrincipal());
      expect((await fetch(`${origin}/agents/api/v1/agent/runs`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(500);
    } finally {
      console.error = original;
      await app.close();
    }
    expect(printed).toEqual([]);
  });
});
