import type { Executor } from '@agentrun/core';
import { describe, expect, it } from 'vitest';
import { startReferenceServer } from '../src/server.js';

// The reference server serves the probes beside the API and the dashboard, and its close() (what
// SIGTERM and SIGINT call) hands a running execution back (docs/operations.md, "Health",
// "Graceful shutdown").
const holding: Executor = {
  async execute(_input, context) {
    await new Promise((_, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true }));
    throw new Error('unreachable');
  },
};

describe('the reference server’s probes and shutdown', () => {
  it('answers /healthz and /readyz without a key, and on close() hands the running run back and stops listening', async () => {
    const server = await startReferenceServer({ port: 0, executor: holding, pollIntervalMs: 20 });
    const live = await fetch(`${server.url}/healthz`);
    expect([live.status, await live.json()]).toEqual([200, { status: 'ok' }]);
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { checks: { name: string }[] }).checks.map((c) => c.name)).toEqual(['store', 'migrations', 'workers']);

    const principal = server.principal;
    const { run_id } = (await server.agentrun.services.runs.create(principal, { prompt: 'hold' })).body;
    await expect
      .poll(async () => (await server.agentrun.services.runs.get(principal, run_id)).state, { timeout: 10_000 })
      .toBe('INPROGRESS');
    await server.close({ graceMs: 50 });
    expect((await server.agentrun.services.runs.get(principal, run_id)).state).toBe('QUEUED');
    expect(server.server.listening).toBe(false);
    expect((await server.agentrun.fetch(new Request('http://x/readyz'))).status).toBe(503);
  });
});
