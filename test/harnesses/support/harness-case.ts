import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentRun, createAgentRun, createApiKey, type RunItem, type Store } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { type ProcessExecutorOptions, processExecutor } from '@agentrun/executor-process';
import { until } from '../../hostile/support/host-processes.js';
import type { TestScope } from '../../hostile/support/test-scope.js';
import type { Step } from '../../support/model-server/script.js';
import { type ModelServer, type ScriptRule, startModelServer } from '../../support/model-server/server.js';
import type { CliProfile } from './cli-profiles.js';

export const principal = testPrincipal();
const KEY = new Uint8Array(32).fill(9);
export const API_KEY = 'sk-agentrun-e2e-7f3a9c41d2';
const ENDED = ['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'];

/** One agentrun over `store` whose executor runs `cli` against a scripted model server. */
export interface HarnessCase {
  agentrun: AgentRun;
  model: ModelServer;
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  /** Starts a run of `cli` with the team secret `model-key` as its key; returns its id. */
  start(prompt: string, config?: Record<string, unknown>): Promise<string>;
  /** The run once it ended. */
  ended(runId: string, ms?: number): Promise<RunItem>;
  /** The run's events but `state`. */
  events(runId: string): Promise<{ type: string; data: Record<string, unknown> }[]>;
  /** The run's directory kept for its session (workspace and home), if one is. */
  runDir(runId: string): string | undefined;
  errors: unknown[];
}

export async function harnessCase(
  scope: TestScope,
  store: Store,
  cli: CliProfile,
  script: readonly Step[],
  executor: Partial<ProcessExecutorOptions> = {},
  rules: readonly ScriptRule[] = [],
): Promise<HarnessCase> {
  scope.root = mkdtempSync(join(tmpdir(), `agentrun-harness-${cli.type}-`));
  const root = scope.root;
  const model = await startModelServer([cli.api], script, rules);
  scope.cleanups ??= [];
  scope.cleanups.push(() => model.close());
  const errors: unknown[] = [];
  const agentrun = createAgentRun({
    store,
    secretKey: KEY,
    executor: processExecutor({
      harnesses: { [cli.type]: true },
      defaultHarness: cli.type,
      endpoints: { [cli.type]: cli.endpoint(model.url) },
      workspaceRoot: join(root, 'runs'),
      timeoutMs: 120_000,
      // Gemini CLI does not end on SIGTERM: a cancel waits the grace out before SIGKILL.
      killGraceMs: 500,
      onError: (e) => errors.push(e),
      ...executor,
    }),
  });
  const key = await createApiKey(store.apiKeys, principal);
  const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    agentrun.fetch(
      new Request(`http://agentrun.test/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  const put = await api('PUT', '/team/secrets/model-key', { value: API_KEY });
  if (put.status >= 300) throw new Error(`PUT secret: ${put.status} ${await put.text()}`);
  scope.worker = agentrun.worker({ concurrency: 2, pollIntervalMs: 20, onError: (e) => errors.push(e) });
  scope.worker.start();
  return {
    agentrun,
    model,
    api,
    errors,
    async start(prompt, config = {}) {
      const res = await api('POST', '/agent/run', {
        prompt,
        config: { harness: { type: cli.type, auth_secret_name: 'model-key' }, model_id: cli.model, ...config },
      });
      const body = (await res.json()) as { run_id: string };
      if (res.status !== 200) throw new Error(`create: ${res.status} ${JSON.stringify(body)}`);
      return body.run_id;
    },
    async ended(runId, ms = 90_000) {
      let run = await agentrun.services.runs.get(principal, runId);
      await until(
        async () => {
          run = await agentrun.services.runs.get(principal, runId);
          return ENDED.includes(run.state);
        },
        `run ${runId} to end`,
        ms,
      );
      return run;
    },
    async events(runId) {
      const events = await store.runEvents.list(runId, { limit: 10_000 });
      return events.filter((e) => e.type !== 'state').map(({ type, data }) => ({ type, data: data as Record<string, unknown> }));
    },
    runDir(runId) {
      const runs = join(root, 'runs');
      if (!existsSync(runs)) return undefined;
      const dir = readdirSync(runs).find((name) => name.startsWith(`${runId}-`));
      return dir === undefined ? undefined : join(runs, dir);
    },
  };
}

/** Every file under `dir` whose text holds `needle`. */
export function filesHolding(dir: string, needle: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    try {
      if (readFileSync(path, 'utf8').includes(needle)) out.push(path);
    } catch {
      // Unreadable: not one.
    }
  }
  return out;
}
