import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import { describe, expect, it, vi } from 'vitest';
import { createAgentRun, type ExecutionContext, type Executor } from '../src/index.js';

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

describe('stopping a worker', () => {
  const setup = () => {
    const agentrun = createAgentRun({ store: createMemoryStore() });
    const { executor, held } = heldExecutor();
    const worker = agentrun.worker({ executor, pollIntervalMs: 10 });
    const create = async () => (await agentrun.services.runs.create(principal, { prompt: 'p' })).body.run_id;
    const stateOf = async (runId: string) => (await agentrun.services.runs.get(principal, runId)).state;
    return { agentrun, worker, held, create, stateOf };
  };

  it('lets an execution that ends within graceMs finish, and claims nothing new meanwhile', async () => {
    const { worker, held, create, stateOf } = setup();
    worker.start();
    const first = await create();
    await vi.waitFor(() => expect(held).toHaveLength(1));
    const stopped = worker.stop({ graceMs: 5_000 });
    const second = await create();
    await new Promise((r) => setTimeout(r, 50));
    expect(held).toHaveLength(1);
    held[0]?.finish();
    await stopped;
    expect(await stateOf(first)).toBe('SUCCEEDED');
    expect(await stateOf(second)).toBe('QUEUED');
  });

  it('hears a cancel during the grace period at once', async () => {
    const { agentrun, worker, held, create, stateOf } = setup();
    worker.start();
    const runId = await create();
    await vi.waitFor(() => expect(held).toHaveLength(1));
    const stopped = worker.stop({ graceMs: 5_000 });
    await agentrun.services.runs.cancel(principal, runId);
    await vi.waitFor(() => expect(held[0]?.ctx.signal.aborted).toBe(true));
    await stopped;
    expect(await stateOf(runId)).toBe('CANCELLED');
  });

  it('aborts what is still running after graceMs and hands its run back to the queue', async () => {
    const { worker, held, create, stateOf } = setup();
    worker.start();
    const runId = await create();
    await vi.waitFor(() => expect(held).toHaveLength(1));
    await worker.stop({ graceMs: 30 });
    expect(held[0]?.ctx.signal.aborted).toBe(true);
    expect(await stateOf(runId)).toBe('QUEUED');
  });

  it('without graceMs aborts at once, as before', async () => {
    const { worker, held, create, stateOf } = setup();
    worker.start();
    const runId = await create();
    await vi.waitFor(() => expect(held).toHaveLength(1));
    await worker.stop();
    expect(held[0]?.ctx.signal.aborted).toBe(true);
    expect(await stateOf(runId)).toBe('QUEUED');
  });

  it('claims again once started again', async () => {
    const { worker, held, create } = setup();
    worker.start();
    await worker.stop();
    worker.start();
    await create();
    await vi.waitFor(() => expect(held).toHaveLength(1));
    await worker.stop();
  });
});
