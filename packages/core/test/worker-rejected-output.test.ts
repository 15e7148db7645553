import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentRun, createAgentRun, type Executor, type RunState, type Store, type Worker } from '../src/index.js';
import type { TransitionRunInput } from '../src/store/runs.js';

// A store that refuses the outcome an execution left (a value it cannot keep, well formed as it
// is: docs/executors.md, "Text a store cannot keep") ends the run at once with
// `store_rejected_output`, where an outage leaves it to its lease (retried, as for a worker that died).

const principal = testPrincipal();
const REFUSED = 'a value this store cannot keep';

class Outage extends Error {}

/** A memory store whose run writes throw when they would set a status message of REFUSED. */
function refusingStore(refusal: () => Error) {
  const store = createMemoryStore();
  let refused = 0;
  const runs = {
    ...store.runs,
    transition(input: TransitionRunInput) {
      if (input.patch.statusMessage?.message === REFUSED) {
        refused++;
        return Promise.reject(refusal());
      }
      return store.runs.transition(input);
    },
  };
  return {
    store: { ...store, runs, isUnavailable: (e: unknown) => e instanceof Outage } satisfies Store,
    refused: () => refused,
  };
}

describe('worker: an outcome the store refuses', () => {
  let agentrun: AgentRun;
  let worker: Worker | undefined;
  let calls: number;
  const errors: unknown[] = [];
  const executor: Executor = {
    async execute() {
      calls++;
      return { status: 'succeeded', message: REFUSED };
    },
  };
  const run = async (store: Store) => {
    calls = 0;
    errors.length = 0;
    agentrun = createAgentRun({ store, executor });
    worker = agentrun.worker({ pollIntervalMs: 10, leaseMs: 3_600_000, onError: (e) => errors.push(e) });
    const runId = (await agentrun.services.runs.create(principal, { prompt: 'go' })).body.run_id;
    worker.start();
    const deadline = Date.now() + 3000;
    while (calls === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    await worker.idle();
    return runId;
  };
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
  });

  it('ends the run FAILED with store_rejected_output at once, the executor called once', async () => {
    const { store, refused } = refusingStore(() => new Error('invalid input syntax for type json'));
    const runId = await run(store);
    const item = await agentrun.services.runs.get(principal, runId);
    expect(item.state).toBe<RunState>('FAILED');
    expect(item.status_message).toEqual({
      message: "The store refused the agent's outcome; it was not kept",
      error_code: 'store_rejected_output',
      retryable: false,
    });
    expect((await store.runs.get(runId))?.lease).toBeNull();
    expect(calls).toBe(1);
    expect(refused()).toBe(1);
    expect(errors.map(String)).toEqual(['Error: invalid input syntax for type json']);
  });

  it('leaves the run to its lease when the store is out of reach', async () => {
    const { store, refused } = refusingStore(() => new Outage('connection refused'));
    const runId = await run(store);
    const record = await store.runs.get(runId);
    expect(record?.state).toBe<RunState>('INPROGRESS');
    expect(record?.lease?.workerId).toBe(worker?.id);
    expect(calls).toBe(1);
    expect(refused()).toBe(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(Outage);
  });
});
