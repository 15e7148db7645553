import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AgentRunHandler,
  createAgentRunHandler,
  type Executor,
  type FollowupRecord,
  type RunState,
  type Store,
  type Worker,
} from '../src/index.js';

// Every follow-up a run accepts reaches an execution: a listener of the one running, or the input
// of the next (docs/executors.md, "Follow-ups"). These tests put a follow-up exactly in the windows
// where one could be lost (between a read and a write of the worker), by steering the store the worker reads and writes through; polls and
// heartbeats are an hour apart, so only what the test does moves the worker.
const principal = testPrincipal();
const HOUR = 3_600_000;

/**
 * A memory store whose `listFollowups` tells the test of each read. `nextRead()` resolves with the
 * read's own promise once a read is made: the worker chains on it first, so awaiting it after
 * resumes the test only once the worker has handled what was read.
 */
function observedStore() {
  const store = createMemoryStore();
  const waiting: ((read: Promise<FollowupRecord[]>) => void)[] = [];
  const runs = {
    ...store.runs,
    listFollowups(runId: string) {
      const read = store.runs.listFollowups(runId);
      for (const tell of waiting.splice(0)) tell(read);
      return read;
    },
  };
  const nextRead = () => new Promise<Promise<FollowupRecord[]>>((resolve) => waiting.push(resolve));
  return { store: { ...store, runs } satisfies Store, nextRead };
}

/**
 * The state events of a run that ended in `first`, was queued again and succeeded. The re-queue's
 * event and the claim it prompts are appended side by side, so those two are taken in either order.
 */
const expectRequeued = (states: RunState[], first: RunState) =>
  expect([...states.slice(0, 3), ...states.slice(3, 5).sort(), ...states.slice(5)]).toEqual([
    'CLAIMED',
    'INPROGRESS',
    first,
    'CLAIMED',
    'QUEUED',
    'INPROGRESS',
    'SUCCEEDED',
  ]);

describe('follow-up delivery', () => {
  let handler: AgentRunHandler;
  let worker: Worker | undefined;
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
  });
  const startWorker = (executor: Executor) => {
    worker = handler.app.worker({ executor, pollIntervalMs: HOUR, heartbeatMs: HOUR, leaseMs: 2 * HOUR });
    worker.start();
    return worker;
  };
  const followup = (runId: string, message: string) => handler.service.followup(principal, runId, { message });
  const states = async (store: Store, runId: string) =>
    (await store.runEvents.list(runId, { limit: 100 })).filter((e) => e.type === 'state').map((e) => (e.data as { to: RunState }).to);

  it('a follow-up sent after the worker read the input but before the executor listened is delivered when it listens, in order', async () => {
    const { store, nextRead } = observedStore();
    handler = createAgentRunHandler({ store });
    const received: string[] = [];
    const executor: Executor = {
      async execute(input, ctx) {
        // The window: the worker has listed this execution's follow-ups; the executor is not listening yet.
        const read = nextRead();
        await followup(input.run.run_id, 'sent before the executor listened');
        await await read; // the worker heard of it and read it
        const last = new Promise<void>((resolve) =>
          ctx.onFollowup((f) => {
            received.push(f.message);
            if (f.message === 'sent while it listens') resolve();
          }),
        );
        await followup(input.run.run_id, 'sent while it listens');
        await last;
        return { status: 'succeeded' };
      },
    };
    const runId = (await handler.service.create(principal, { prompt: 'go' })).body.run_id;
    await startWorker(executor).idle();
    expect(received).toEqual(['sent before the executor listened', 'sent while it listens']);
    // Both were delivered: nothing re-queues the run.
    expect(await states(store, runId)).toEqual(['CLAIMED', 'INPROGRESS', 'SUCCEEDED']);
  });

  it('a follow-up the execution never received (it did not listen) queues the run again, and the next execution has it as input', async () => {
    const { store } = observedStore();
    handler = createAgentRunHandler({ store });
    const inputs: string[][] = [];
    const executor: Executor = {
      async execute(input) {
        inputs.push(input.followups.map((f) => f.message));
        if (inputs.length === 1) await followup(input.run.run_id, 'sent to a run whose executor does not listen');
        return { status: 'succeeded' };
      },
    };
    const runId = (await handler.service.create(principal, { prompt: 'go' })).body.run_id;
    await startWorker(executor).idle();
    expect(inputs).toEqual([[], ['sent to a run whose executor does not listen']]);
    expectRequeued(await states(store, runId), 'SUCCEEDED');
    expect((await handler.service.get(principal, runId)).state).toBe('SUCCEEDED');
  });

  it('a follow-up accepted after the executor returned, as the worker writes the outcome, queues the run again', async () => {
    const { store: observed } = observedStore();
    let sent = false;
    let runIdOf = '';
    // The follow-up lands just before the worker's write of FAILED: the run is still INPROGRESS,
    // so the API accepts it (200) and leaves the state; the execution listening has already returned.
    const store: Store = {
      ...observed,
      runs: {
        ...observed.runs,
        async transition(input) {
          if (input.patch.state === 'FAILED' && !sent) {
            sent = true;
            const reply = await followup(runIdOf, 'sent as it finished');
            expect(reply.body).toEqual({ run_id: runIdOf, state: 'INPROGRESS' });
          }
          return observed.runs.transition(input);
        },
      },
    };
    handler = createAgentRunHandler({ store });
    const inputs: string[][] = [];
    const received: string[] = [];
    const executor: Executor = {
      async execute(input, ctx) {
        ctx.onFollowup((f) => received.push(f.message));
        inputs.push(input.followups.map((f) => f.message));
        return inputs.length === 1 ? { status: 'failed', message: 'not yet' } : { status: 'succeeded' };
      },
    };
    runIdOf = (await handler.service.create(principal, { prompt: 'go' })).body.run_id;
    await startWorker(executor).idle();
    expect(received).toEqual([]);
    expect(inputs).toEqual([[], ['sent as it finished']]);
    expectRequeued(await states(store, runIdOf), 'FAILED');
  });
});
