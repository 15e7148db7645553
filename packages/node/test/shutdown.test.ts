import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { type AgentRun, createAgentRun, createApiKey, type ExecutionContext, type Executor } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import { describe, expect, it, vi } from 'vitest';
import { createNodeListener, shutdownGracefully } from '../src/index.js';

// shutdownGracefully (docs/operations.md, "Graceful shutdown"): stop accepting, let in-flight
// requests finish (a delivery being received is answered and kept), finish or hand back the
// executions, cut what is left at the bound, close the store.
const principal = testPrincipal();

/** Executions the test ends by hand; an aborted one rejects with the signal's reason. */
function heldExecutor() {
  const held: { ctx: ExecutionContext; finish: () => void }[] = [];
  const executor: Executor = {
    execute: (_input, ctx) =>
      new Promise((resolve, reject) => {
        held.push({ ctx, finish: () => resolve({ status: 'succeeded', message: 'finished in time' }) });
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
      }),
  };
  return { executor, held };
}

interface Started {
  agentrun: AgentRun;
  server: Server;
  origin: string;
  key: string;
  held: ReturnType<typeof heldExecutor>['held'];
  closed: () => boolean;
}

async function start(): Promise<Started> {
  const memory = createMemoryStore();
  let closed = false;
  const store = {
    ...memory,
    close: async () => {
      closed = true;
    },
  };
  const { executor, held } = heldExecutor();
  const agentrun = createAgentRun({ store, executor, secretKey: randomBytes(32) });
  const server = createServer(createNodeListener(agentrun));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  agentrun.worker({ pollIntervalMs: 10, concurrency: 2 }).start();
  return {
    agentrun,
    server,
    origin: `http://127.0.0.1:${port}`,
    key: await createApiKey(store.apiKeys, principal),
    held,
    closed: () => closed,
  };
}

/** A token webhook; its ingress URL and bearer header. */
async function tokenWebhook(s: Started) {
  const post = async (path: string, body: unknown) =>
    (await fetch(`${s.origin}/api/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((r) => r.json())) as Record<string, unknown>;
  const factory = (await post('/factories', { name: 'Shutdown' })).uid as string;
  const created = (await post(`/factories/${factory}/webhooks`, { name: 'hook', auth_mode: 'token' })) as {
    webhook: { uid: string };
    secret: string;
  };
  return { url: `${s.origin}/webhooks/w/${created.webhook.uid}`, auth: { authorization: `Bearer ${created.secret}` }, factory };
}

/** A request body the test writes by hand: the delivery is in flight until `end()`. */
function heldBody() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
  });
  return {
    stream,
    write: (text: string) => controller.enqueue(new TextEncoder().encode(text)),
    end: () => controller.close(),
  };
}

/** Whether a new TCP connection to the server is refused. */
const refused = (origin: string) =>
  new Promise<boolean>((resolve) => {
    const { port } = new URL(origin);
    const socket = connect(Number(port), '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

describe('shutdownGracefully', () => {
  it('stops accepting, answers and keeps the delivery in flight, finishes one run and hands the other back, then closes the store', async () => {
    const s = await start();
    const hook = await tokenWebhook(s);
    const runIds = await Promise.all(
      [1, 2].map(async () => (await s.agentrun.services.runs.create(principal, { prompt: 'p' })).body.run_id),
    );
    await vi.waitFor(() => expect(s.held).toHaveLength(2));

    // A delivery whose body is still arriving when the shutdown begins.
    const body = heldBody();
    const arrived = new Promise((resolve) => s.server.once('request', resolve));
    const delivery = fetch(hook.url, { method: 'POST', headers: hook.auth, body: body.stream, duplex: 'half' } as RequestInit);
    body.write('{"event":');
    await arrived;

    const shutdown = shutdownGracefully({ agentrun: s.agentrun, servers: [s.server], timeoutMs: 20_000, graceMs: 200 });
    expect(await refused(s.origin)).toBe(true);
    const ready = await s.agentrun.fetch(new Request('http://x/readyz'));
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toContain('shutdown');

    // One execution ends within the grace, the other does not; the delivery's body ends.
    const [finishing] = s.held;
    finishing?.finish();
    body.write('"push"}');
    body.end();
    const answer = await delivery;
    expect(answer.status).toBe(202);
    const { delivery_id } = (await answer.json()) as { delivery_id: string };

    const report = await shutdown;
    expect(report).toEqual({ timedOut: false });
    expect(s.closed()).toBe(true);
    expect(s.server.listening).toBe(false);
    const states = await Promise.all(runIds.map(async (id) => (await s.agentrun.services.runs.get(principal, id)).state));
    expect(states.sort()).toEqual(['QUEUED', 'SUCCEEDED']);
    // The delivery is in the log: nothing received was lost.
    const webhookUid = new URL(hook.url).pathname.split('/').pop() as string;
    const log = await s.agentrun.services.control.listDeliveries(principal, hook.factory, webhookUid, {});
    expect(log.deliveries.map((d: { delivery_id: string }) => d.delivery_id)).toContain(delivery_id);
  });

  it('cuts what is still open at the bound, and still closes the store', async () => {
    const s = await start();
    const hook = await tokenWebhook(s);
    const body = heldBody();
    const arrived = new Promise((resolve) => s.server.once('request', resolve));
    const stuck = fetch(hook.url, { method: 'POST', headers: hook.auth, body: body.stream, duplex: 'half' } as RequestInit).then(
      (r) => r.status,
      () => 'cut',
    );
    body.write('{"never":');
    await arrived;
    const report = await shutdownGracefully({ agentrun: s.agentrun, servers: [s.server], timeoutMs: 300 });
    expect(report).toEqual({ timedOut: true });
    expect(await stuck).toBe('cut');
    expect(s.closed()).toBe(true);
  });
});
