import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentRunOptions, createAgentRun, type RunItem, type RunState, type Store } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { processExecutor } from '../../../packages/executor-process/src/index.js';

const principal = testPrincipal();
const ENDED: RunState[] = ['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'];

/** What one run of a script agent left: the run as the API serves it, and its events but `state`. */
export interface ScriptAgentRun {
  run: RunItem;
  events: { type: string; data: Record<string, unknown> }[];
  errors: unknown[];
}

/**
 * One run of `script` (Node, run with `node -e`) as the agent of the process executor, on `store`,
 * to its end. `options`: more of `createAgentRun`'s (artifact limits, a public base URL).
 */
export async function runScriptAgent(
  store: Store,
  script: string,
  options: Omit<AgentRunOptions, 'store' | 'executor'> = {},
): Promise<ScriptAgentRun> {
  const root = mkdtempSync(join(tmpdir(), 'agentrun-script-agent-'));
  const errors: unknown[] = [];
  const executor = processExecutor({
    command: process.execPath,
    args: ['-e', script],
    workspaceRoot: join(root, 'runs'),
    onError: (e) => errors.push(e),
  });
  const agentrun = createAgentRun({ ...options, store, executor });
  const worker = agentrun.worker({ pollIntervalMs: 20, onError: (e) => errors.push(e) });
  worker.start();
  try {
    const { run_id } = (await agentrun.services.runs.create(principal, { prompt: 'hostile agent' })).body;
    const deadline = Date.now() + 20_000;
    let run = await agentrun.services.runs.get(principal, run_id);
    while (!ENDED.includes(run.state)) {
      if (Date.now() > deadline) throw new Error(`run ${run_id} did not end: ${JSON.stringify(run)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      run = await agentrun.services.runs.get(principal, run_id);
    }
    const events = await store.runEvents.list(run_id, { limit: 1000 });
    return {
      run,
      events: events.filter((e) => e.type !== 'state').map(({ type, data }) => ({ type, data: data as Record<string, unknown> })),
      errors,
    };
  } finally {
    await worker.stop();
    rmSync(root, { recursive: true, force: true });
  }
}
