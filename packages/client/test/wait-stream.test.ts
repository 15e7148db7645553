import { describe, expect, it } from 'vitest';
import {
  AgentRunClient,
  AgentRunError,
  APIConnectionError,
  type Fetch,
  InternalServerError,
  RUN_STATES,
  TERMINAL_STATES,
  WaitTimeoutError,
} from '../src/index.js';

/**
 * wait() and stream() on a stub fetch, for what a real server does not do on demand: every run
 * state, a silent connection, a stream that keeps dropping, data that is not an event. The
 * shared suite (client.test.ts) runs both against the reference server.
 */

const client = (fetch: Fetch, options: { maxRetries?: number; timeoutMs?: number } = {}) =>
  new AgentRunClient({ apiKey: 'k', baseURL: 'http://x', fetch, ...options });

const sse = (text: string, then: 'end' | 'drop' | 'hang' = 'end') =>
  new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text));
      },
      // Read after the text: the end, a reset (erroring in start would discard the text), or nothing ever.
      pull(controller) {
        if (then === 'end') controller.close();
        if (then === 'drop') controller.error(new TypeError('terminated'));
        if (then === 'hang') return new Promise<void>(() => {});
      },
    }),
    { headers: { 'content-type': 'text/event-stream' } },
  );

const event = (id: number) => `id: ${id}\nevent: output\ndata: ${JSON.stringify({ id, at: 'now', type: 'output', data: { n: id } })}\n\n`;

describe('wait()', () => {
  it('resolves on each terminal state and keeps looking on every other state of core', async () => {
    expect([...TERMINAL_STATES].sort()).toEqual(['CANCELLED', 'ERROR', 'FAILED', 'SUCCEEDED']);
    for (const state of RUN_STATES) {
      const states = TERMINAL_STATES.has(state) ? [state] : [state, 'SUCCEEDED'];
      let looks = 0;
      const run = await client(async () => Response.json({ run_id: 'r', state: states[looks++] })).runs.wait('r', { pollIntervalMs: 0 });
      expect({ state, looks }).toEqual({ state, looks: states.length });
      expect(run.state).toBe(states.at(-1));
    }
  });

  it('a failed look is the error of its answer; a bad option is a TypeError', async () => {
    const failing = client(async () => Response.json({ error: 'internal_error' }, { status: 500 }), { maxRetries: 0 });
    await expect(failing.runs.wait('r')).rejects.toBeInstanceOf(InternalServerError);
    await expect(failing.runs.wait('r', { pollIntervalMs: -1 })).rejects.toBeInstanceOf(TypeError);
    await expect(failing.runs.wait('r', { timeoutMs: Number.NaN })).rejects.toBeInstanceOf(TypeError);
  });

  it('a look that outlasts timeoutMs ends with WaitTimeoutError', async () => {
    const hanging: Fetch = (_input, init) =>
      new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true }));
    const error = await client(hanging)
      .runs.wait('r', { timeoutMs: 20 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error).toMatchObject({ runId: 'r', timeoutMs: 20, lastState: undefined });
  });
});

describe('stream()', () => {
  it('a connection silent for longer than idleTimeoutMs is opened again after the last event', async () => {
    const lastEventIds: (string | null)[] = [];
    const fetch: Fetch = async (_input, init) => {
      lastEventIds.push(new Headers(init.headers).get('last-event-id'));
      return lastEventIds.length === 1 ? sse(event(1) + event(2), 'hang') : sse(event(3));
    };
    const ids: number[] = [];
    for await (const e of client(fetch).runs.stream('r', { idleTimeoutMs: 20 })) ids.push(e.id);
    expect(ids).toEqual([1, 2, 3]);
    expect(lastEventIds).toEqual([null, '2']);
  });

  it('skips events the server sends again, and gives up after maxRetries drops in a row', async () => {
    let connections = 0;
    const fetch: Fetch = async () => {
      connections++;
      return connections === 1 ? sse(event(1) + event(2), 'drop') : sse(event(1) + event(2) + event(3), 'drop');
    };
    const ids: number[] = [];
    const error = await (async () => {
      for await (const e of client(fetch, { maxRetries: 1 }).runs.stream('r')) ids.push(e.id);
    })().catch((e: unknown) => e);
    expect(ids).toEqual([1, 2, 3]);
    expect(error).toBeInstanceOf(APIConnectionError);
    // The drop after event 3 follows progress, so it gets a fresh budget of one retry: 3 connections.
    expect(connections).toBe(3);
  });

  it('data that is not a run event is a clear error, not a crash', async () => {
    const notJson = client(async () => sse('data: {oops\n\n'));
    await expect(notJson.runs.stream('r').next()).rejects.toThrow(/not JSON/);
    const notEvent = client(async () => sse('data: {"hello":1}\n\n'));
    await expect(notEvent.runs.stream('r').next()).rejects.toBeInstanceOf(AgentRunError);
    const notStream = client(async () => Response.json({ events: [], page_info: {} }));
    await expect(notStream.runs.stream('r').next()).rejects.toThrow(/asked for text\/event-stream, the server answered application\/json/);
  });
});
