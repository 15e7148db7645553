import { agentrunFastify, shutdownGracefully } from '@agentrun/adapter-fastify';
import { composeMounts, createAgentRun } from '@agentrun/core';
import { createMemoryStore } from '@agentrun/store-memory';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';

// The Fastify recipe of docs/operations.md, "Graceful shutdown": shutdownGracefully on app.server,
// then app.close() for the host's onClose hooks.
describe('shutdownGracefully under Fastify', () => {
  it('lets the request in flight finish, refuses new ones, then app.close() still runs its hooks', async () => {
    const agentrun = createAgentRun({ store: createMemoryStore() });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let arrived!: () => void;
    const inFlight = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    // A slow route beside agentrun's: answered only once the test releases it.
    const slow = {
      owns: (p: string) => p === '/slow',
      fetch: async () => {
        arrived();
        await gate;
        return new Response('done');
      },
    };
    const app = Fastify();
    let hooked = false;
    app.addHook('onClose', async () => {
      hooked = true;
    });
    await app.register(agentrunFastify, { handler: composeMounts([slow, agentrun], agentrun.fetch), prefix: '/agents' });
    const origin = await app.listen({ port: 0, host: '127.0.0.1' });
    expect((await fetch(`${origin}/agents/readyz`)).status).toBe(200);

    const answer = fetch(`${origin}/agents/slow`).then((r) => r.text());
    await inFlight;
    const shutdown = shutdownGracefully({ agentrun, servers: [app.server], timeoutMs: 20_000 });
    await expect(fetch(`${origin}/agents/healthz`, { headers: { connection: 'close' } })).rejects.toThrow();
    release();
    expect(await answer).toBe('done');
    expect(await shutdown).toEqual({ timedOut: false });
    await app.close();
    expect(hooked).toBe(true);
  });
});
