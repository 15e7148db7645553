import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { agentrunFastify } from '@agentrun/adapter-fastify';
import { createAgentRunHandler, createApiKey } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

/**
 * Malformed and hostile requests at the webhook ingress through a real Fastify server on 127.0.0.1
 * (core handler, memory store): each is answered or dropped, the process keeps serving, and none
 * reaches the handler's `onError`.
 */
describe('webhook ingress through agentrunFastify: bad input on the wire', () => {
  const errors: unknown[] = [];
  let app: FastifyInstance;
  let origin = '';
  let port = 0;
  let apiKey = '';
  let factory = '';
  let path = '';
  let auth: Record<string, string> = {};

  const api = async <T>(method: string, route: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${origin}/api/v1${route}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: (text === '' ? undefined : JSON.parse(text)) as T };
  };
  const statuses = async () =>
    (
      await api<{ deliveries: { status: string }[] }>('GET', `/factories/${factory}/webhooks/${path.split('/').pop()}/deliveries?limit=100`)
    ).body.deliveries.map((d) => d.status);
  let n = 0;
  /** A normal delivery (a distinct body each time): 202. */
  const expectServing = async () => {
    const res = await fetch(`${origin}${path}`, { method: 'POST', headers: auth, body: JSON.stringify({ action: 'opened', n: n++ }) });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ delivery_id: expect.any(String) });
  };
  /** Write `raw` on a fresh TCP connection; resolves to what the server sent before it closed (or `waitMs` passed). */
  const rawExchange = (raw: string, opts: { destroyAfterWrite?: boolean; waitMs?: number } = {}) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let received = '';
      const timer = setTimeout(() => {
        socket.destroy();
        resolve(received);
      }, opts.waitMs ?? 2000);
      socket.on('data', (chunk) => {
        received += chunk.toString('latin1');
      });
      socket.on('error', (error) => {
        // The server may reset a connection it refuses; what it sent before counts.
        if ((error as NodeJS.ErrnoException).code === 'ECONNRESET' || (error as NodeJS.ErrnoException).code === 'EPIPE') return;
        clearTimeout(timer);
        reject(error);
      });
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(received);
      });
      socket.write(raw, () => {
        if (opts.destroyAfterWrite) socket.destroy();
      });
    });

  beforeAll(async () => {
    const store = createMemoryStore();
    const handler = createAgentRunHandler({
      store,
      secretKey: randomBytes(32).toString('base64'),
      onError: (error) => errors.push(error),
    });
    app = Fastify();
    await app.register(agentrunFastify, { handler });
    origin = await app.listen({ port: 0, host: '127.0.0.1' });
    port = Number(new URL(origin).port);
    apiKey = await createApiKey(store.apiKeys, testPrincipal());
    factory = (await api<{ uid: string }>('POST', '/factories', { name: 'Acme' })).body.uid;
    const created = await api<{ webhook: { uid: string }; secret: string }>('POST', `/factories/${factory}/webhooks`, {
      name: 'CI',
      auth_mode: 'token',
    });
    expect(created.status).toBe(201);
    path = `/webhooks/w/${created.body.webhook.uid}`;
    auth = { authorization: `Bearer ${created.body.secret}` };
    const automation = await api('POST', `/factories/${factory}/automations`, {
      name: 'Triage',
      prompt: 'Triage the event.',
      triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [created.body.webhook.uid] } }],
    });
    expect(automation.status).toBe(201);
    await expectServing();
  });
  afterEach(() => {
    expect(errors).toEqual([]);
  });
  afterAll(() => app?.close());

  it('a body that stops mid-stream (Content-Length 1000, 10 bytes sent, socket destroyed): no crash, the next delivery is 202', async () => {
    const head =
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${auth.authorization}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n';
    const before = await statuses();
    await rawExchange(`${head}{"action":`, { destroyAfterWrite: true });
    // Give the server time to see the abort and finish whatever it started for that request.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expectServing();
    // The cut delivery was never accepted: at most one entry more than the one just accepted.
    const after = await statuses();
    expect(after[0]).toBe('Accepted');
    expect(after.filter((s) => s === 'Accepted')).toHaveLength(before.filter((s) => s === 'Accepted').length + 1);
  });

  it('a POST with no body at all: 400, logged Rejected (invalid JSON)', async () => {
    const res = await fetch(`${origin}${path}`, { method: 'POST', headers: auth });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toMatchObject({ status: 400, error: 'invalid_request' });
    expect((await statuses())[0]).toBe('Rejected (invalid JSON)');
    await expectServing();
  });

  it("a 100 KB header value: answered 431 by Node's HTTP server, the process keeps serving", async () => {
    const raw =
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${auth.authorization}\r\n` +
      `X-Huge: ${'a'.repeat(100 * 1024)}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`;
    const answer = await rawExchange(raw);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    await expectServing();
  });

  it('100,000-deep nesting: 400, logged Rejected (invalid JSON)', async () => {
    const body = '['.repeat(100_000) + ']'.repeat(100_000);
    const res = await fetch(`${origin}${path}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ status: 400, error: 'invalid_request' });
    expect((await statuses())[0]).toBe('Rejected (invalid JSON)');
    await expectServing();
  });
});
