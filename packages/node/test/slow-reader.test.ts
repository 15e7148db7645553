import { createServer, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { createAgentRunHandler, createApiKey } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { createNodeListener } from '@agentrun/node';
import { createMemoryStore } from '@agentrun/store-memory';
import { countingStream } from '@agentrun/test-utils/http';
import { closeServer, listen } from '@agentrun/test-utils/servers';
import { afterEach, describe, expect, it, vi } from 'vitest';

// The Node bridge under a client that never reads (docs/run-api.md, "Slow readers"): it reads the
// body no faster than the socket drains, and a body that drops its client ends the connection
// without reporting a failure.

const sockets: Socket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.destroy();
  vi.restoreAllMocks();
});

/** A connection that sends `GET path` and then reads nothing until `resume()`. */
function stalledClient(origin: string, path: string, headers: Record<string, string>) {
  const { hostname, port } = new URL(origin);
  const socket = connect(Number(port), hostname);
  sockets.push(socket);
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
  socket.write(`GET ${path} HTTP/1.1\r\nhost: ${hostname}\r\n${lines.join('')}\r\n`);
  socket.pause();
  let received = 0;
  const ended = new Promise<number>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    socket.on('end', () => resolve(received));
    socket.on('error', () => resolve(received));
  });
  return { resume: () => socket.resume(), ended };
}

/** Resolves once `value()` has not changed over a few looks a tenth of a second apart. */
async function steady(value: () => number): Promise<number> {
  let last = -1;
  let same = 0;
  while (same < 3) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = value();
    same = now === last ? same + 1 : 0;
    last = now;
  }
  return last;
}

describe('the Node bridge and a client that does not read', () => {
  it('reads the body only as fast as the socket drains', async () => {
    const endless = countingStream(Number.MAX_SAFE_INTEGER);
    const handler = { owns: () => true, fetch: async () => new Response(endless.body) };
    const server = createServer(createNodeListener(handler));
    const origin = await listen(server);
    try {
      stalledClient(origin, '/', {});
      const pulled = await steady(endless.pulled);
      // What the kernel's socket buffers took (a few MB on loopback) and a chunk or two: not the
      // endless body.
      expect(pulled).toBeGreaterThan(0);
      expect(pulled).toBeLessThan(64 * 1024 * 1024);
    } finally {
      await closeServer(server);
    }
  });

  it('closes the connection of a client core dropped for not reading, and reports nothing', async () => {
    const store = createMemoryStore();
    const errors: unknown[] = [];
    const handler = createAgentRunHandler({ store, streamLimits: { dropStalledAfterMs: 300 }, onError: (e) => errors.push(e) });
    const key = await createApiKey(store.apiKeys, testPrincipal());
    const created = await handler(
      new Request('http://agentrun.test/api/v1/agent/run', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'long' }),
      }),
    );
    const { run_id: runId } = (await created.json()) as { run_id: string };
    // 4,000 events of 8 KB: 32 MB of frames, more than loopback's socket buffers take.
    const text = 'w'.repeat(8_000);
    await store.runEvents.append(
      runId,
      Array.from({ length: 4_000 }, () => ({ at: new Date(0).toISOString(), type: 'output' as const, data: { text } })),
    );
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    let serverClosed!: () => void;
    const closed = new Promise<void>((resolve) => {
      serverClosed = resolve;
    });
    const listener = createNodeListener(handler);
    const server = createServer((req, res: ServerResponse) => {
      res.once('close', serverClosed);
      listener(req, res);
    });
    const origin = await listen(server);
    try {
      const client = stalledClient(origin, `/api/v1/agent/runs/${runId}/events`, {
        authorization: `Bearer ${key}`,
        accept: 'text/event-stream',
      });
      // The server closes its side once core drops the client (the client has read nothing).
      await closed;
      client.resume();
      const received = await client.ended;
      expect(received).toBeGreaterThan(0);
      expect(received).toBeLessThan(32 * 1024 * 1024);
      expect(logged).not.toHaveBeenCalled();
      expect(errors).toEqual([]);
    } finally {
      await closeServer(server);
    }
  });
});
