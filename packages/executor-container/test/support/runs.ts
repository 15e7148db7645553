import { type AgentRun, createAgentRun, type Executor, type ResolvedEnvironment, type RunState } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';

/** The environment a test's runs get: its image and limits, as the store would resolve them (docs/repositories.md, "What an executor receives"). */
export function withEnvironment(executor: Executor, environment: () => Partial<ResolvedEnvironment> | undefined): Executor {
  return {
    execute(input, context) {
      const given = environment();
      if (given === undefined) return executor.execute(input, context);
      const full: ResolvedEnvironment = {
        id: 'env-test',
        name: 'test',
        repositories: [],
        setup: [],
        variables: {},
        setupTimeoutSeconds: 60,
        ...given,
      };
      return executor.execute({ ...input, environment: full }, context);
    },
  };
}

const principal = testPrincipal();

/** A memory store and a worker over `executor`: create runs, wait for their end, read their transcript. */
export function runsOn(executor: Executor) {
  const agentrun: AgentRun = createAgentRun({ store: createMemoryStore(), executor });
  const errors: unknown[] = [];
  const worker = agentrun.worker({ pollIntervalMs: 20, concurrency: 4, onError: (e) => errors.push(e) });
  worker.start();
  const get = (runId: string) => agentrun.services.runs.get(principal, runId);
  return {
    agentrun,
    errors,
    get,
    stop: () => worker.stop(),
    create: async (prompt: string) => (await agentrun.services.runs.create(principal, { prompt })).body.run_id,
    cancel: (runId: string) => agentrun.services.runs.cancel(principal, runId),
    followup: (runId: string, message: string) => agentrun.services.runs.followup(principal, runId, { message }),
    async settled(runId: string, timeoutMs = 60_000) {
      await until(async () => ENDED.includes((await get(runId)).state), `run ${runId} to end`, timeoutMs);
      return get(runId);
    },
    async output(runId: string) {
      const events = await agentrun.store.runEvents.list(runId, { limit: 1000 });
      return events.filter((e) => e.type === 'output').map((e) => (e.data as { text: string }).text);
    },
  };
}

const ENDED: readonly RunState[] = ['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'];

export const until = async (check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};
