import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentRun, createAgentRun, createApiKey, type Executor, type Worker } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { processExecutor } from '@agentrun/executor-process';
import { createMemoryStore } from '@agentrun/store-memory';
import type { CliProfile } from '../test/harnesses/support/cli-profiles.js';
import type { ModelServer } from '../test/support/model-server/server.js';
import { API_KEY, FINAL_TEXT, PROMPT, programOf, RUN_TIMEOUT_MS, type TurnTimes, turnTimes } from './harness-case.js';

/** One run's instants (Date.now()): its state changes as its events stamp them, the executor's call, the model requests. */
export interface AgentrunSample extends TurnTimes {
  claimedAt: number;
  startedAt: number;
  /** The worker called the executor's `execute`, and it returned (the bench's wrapper, around nothing else). */
  executeAt: number;
  executedAt: number;
  succeededAt: number;
}

export interface AgentrunSide {
  /** One run through the API, to its end. */
  run(): Promise<AgentrunSample>;
  close(): Promise<void>;
}

/** The worker's poll, when no notification woke it: the claim is where the bench's clock starts, so this is out of the figures. */
const POLL_MS = 10;
const KEY = new Uint8Array(32).fill(7);
const principal = testPrincipal();

/**
 * agentrun as a host embeds it for one CLI (test/harnesses/support/harness-case.ts): the memory
 * store, one worker at concurrency 1, the process executor with only this harness, plain
 * isolation (the server's user, no sandbox; a PID namespace where one can be had), the model
 * endpoint the scripted server, the key a team secret. The executor's other options are its
 * defaults: a session is kept for a follow-up after the run (its directory removed later, not
 * inside the run's time), as a server keeps it.
 */
export async function agentrunSide(cli: CliProfile, model: ModelServer): Promise<AgentrunSide> {
  const root = await mkdtemp(join(tmpdir(), `agentrun-bench-harness-${cli.type}-`));
  const errors: unknown[] = [];
  const calls = new Map<string, { executeAt: number; executedAt?: number }>();
  const inner = processExecutor({
    harnesses: { [cli.type]: { path: programOf(cli).path } },
    defaultHarness: cli.type,
    endpoints: { [cli.type]: cli.endpoint(model.url) },
    workspaceRoot: join(root, 'runs'),
    onError: (e) => errors.push(e),
  });
  const executor: Executor = {
    ...inner,
    async execute(input, context) {
      const call: { executeAt: number; executedAt?: number } = { executeAt: Date.now() };
      calls.set(input.run.run_id, call);
      try {
        return await inner.execute(input, context);
      } finally {
        call.executedAt = Date.now();
      }
    },
  };
  const store = createMemoryStore();
  const agentrun = createAgentRun({ store, secretKey: KEY, executor });
  const key = await createApiKey(store.apiKeys, principal);
  const api = (method: string, path: string, body: unknown) =>
    agentrun.fetch(
      new Request(`http://agentrun.bench/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
  const put = await api('PUT', '/team/secrets/model-key', { value: API_KEY });
  if (put.status >= 300) throw new Error(`PUT secret: ${put.status} ${await put.text()}`);
  const worker: Worker = agentrun.worker({ concurrency: 1, pollIntervalMs: POLL_MS, onError: (e) => errors.push(e) });
  worker.start();

  return {
    async run() {
      const from = model.requests.length;
      const created = await api('POST', '/agent/run', {
        prompt: PROMPT,
        config: { harness: { type: cli.type, auth_secret_name: 'model-key' }, model_id: cli.model },
      });
      const { run_id: runId } = (await created.json()) as { run_id: string };
      if (created.status !== 200) throw new Error(`create: ${created.status}`);
      const run = await ended(agentrun, runId);
      if (run.state !== 'SUCCEEDED' || run.status_message?.message !== FINAL_TEXT) {
        throw new Error(`agentrun ${cli.type} run ${run.state}: ${JSON.stringify(run.status_message)}; ${errors.map(String).join('; ')}`);
      }
      const states = await stateTimes(store, runId);
      const call = calls.get(runId);
      if (call?.executedAt === undefined) throw new Error(`run ${runId} ended without the executor's call`);
      return {
        claimedAt: states.CLAIMED,
        startedAt: states.INPROGRESS,
        executeAt: call.executeAt,
        executedAt: call.executedAt,
        succeededAt: states.SUCCEEDED,
        ...turnTimes(model, cli, from),
      };
    },
    async close() {
      await worker.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}

const ENDED = ['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'];

/** The run once it ended; polled, since its times are read from its events, not from when this saw it. */
async function ended(agentrun: AgentRun, runId: string) {
  const deadline = Date.now() + RUN_TIMEOUT_MS;
  for (;;) {
    const run = await agentrun.services.runs.get(principal, runId);
    if (ENDED.includes(run.state)) return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.state} after ${RUN_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** When the run entered CLAIMED, INPROGRESS and SUCCEEDED: its `state` events' `at`. */
async function stateTimes(store: ReturnType<typeof createMemoryStore>, runId: string) {
  const events = await store.runEvents.list(runId, { limit: 10_000 });
  const at = (to: string) => {
    const event = events.find((e) => e.type === 'state' && (e.data as { to?: string }).to === to);
    if (!event) throw new Error(`run ${runId} has no state event to ${to}`);
    return Date.parse(event.at);
  };
  return { CLAIMED: at('CLAIMED'), INPROGRESS: at('INPROGRESS'), SUCCEEDED: at('SUCCEEDED') };
}
