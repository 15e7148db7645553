import type { Executor } from '@agentrun/core';
import type { ReferenceServer } from '@agentrun/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliJson, envFor, startServer } from './support.js';

// `agentrun workers` (docs/cli.md, "workers") against a reference server whose worker serves host
// `gpu-1`, only its own runs, and holds the one run started here until the server stops.

/** Holds every run until it is aborted; `started` resolves with the first one's id. */
let started: (id: string) => void;
const first = new Promise<string>((resolve) => {
  started = resolve;
});
const holding: Executor = {
  execute: (input, context) =>
    new Promise((_, reject) => {
      started(input.run.run_id);
      context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true });
    }),
};

let server: ReferenceServer;
beforeAll(async () => {
  server = await startServer({ executor: holding, worker: { host: 'gpu-1', unrouted: false, concurrency: 2, executorName: 'holding' } });
});
afterAll(() => server?.close({ graceMs: 0 }));

describe('agentrun workers', () => {
  it('prints each live worker with its host, what it takes and holds, and your runs', async () => {
    const res = await fetch(`${server.url}/api/v1/agent/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'hold', config: { worker_host: 'gpu-1' } }),
    });
    const { run_id } = (await res.json()) as { run_id: string };
    expect(await first).toBe(run_id);
    // The presence record tells the held run from the worker's next heartbeat (every 5 s).
    let listed = await cliJson<{ id: string; host: string; runs: string[] }[]>(['workers'], { env: envFor(server) });
    while (listed[0]?.runs.length === 0) {
      await new Promise((r) => setTimeout(r, 200));
      listed = await cliJson(['workers'], { env: envFor(server) });
    }
    expect(listed).toMatchObject([
      { id: server.worker.id, host: 'gpu-1', unrouted: false, capacity: 2, runs_held: 1, runs: [run_id], executor: 'holding' },
    ]);
    const printed = await cli(['workers'], { env: envFor(server) });
    expect(printed.code, printed.stderr).toBe(0);
    const [header, row] = printed.stdout.trimEnd().split('\n');
    expect(header?.split(/\s{2,}/)).toEqual(['HOST', 'ID', 'UNROUTED', 'HELD', 'EXECUTOR', 'VERSION', 'LAST SEEN', 'YOUR RUNS']);
    expect(row?.split(/\s{2,}/)).toEqual(['gpu-1', server.worker.id, 'no', '1/2', 'holding', '0.1.0', expect.any(String), run_id]);
  });
});
