import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type AgentRun,
  createAgentRun,
  createApiKey,
  type ExecutionContext,
  type ExecutionInput,
  type Executor,
  type RunItem,
  type Worker,
} from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { processExecutor } from '@agentrun/executor-process';
import { createMemoryStore } from '@agentrun/store-memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE, type CliProfile, CODEX, GEMINI } from '../../../test/harnesses/support/cli-profiles.js';
import type { Step } from '../../../test/support/model-server/script.js';
import { type ModelServer, startModelServer } from '../../../test/support/model-server/server.js';
import { type ContainerExecutor, containerExecutor } from '../src/index.js';
import { nodeImage, type Podman, podmanUnavailable, startPodman } from './support/podman.js';
import { until } from './support/runs.js';

/**
 * The agent CLIs in the container executor (docs/executors.md, "The container executor", "Agent
 * CLIs"): a real CLI, its installed package in an image beside this Node, run through the run API
 * against the scripted model server on 127.0.0.1 (the container on the engine's `host` network to
 * reach it), and the same run on the process executor: the same transcript. One engine, one image
 * (cached by content), one model server for the file.
 */
const missing = podmanUnavailable();
const skipped = missing !== undefined && process.env.CI !== 'true';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const principal = testPrincipal();
const KEY = new Uint8Array(32).fill(9);
const API_KEY = 'sk-agentrun-container-5e1b77';
const BASE = 'BASE-PROMPT-2a9d: answer briefly';
/** What the model does: a shell command, a file written, a final text. */
const SCRIPT: Step[] = [{ shell: 'echo hi > from-shell.txt' }, { write: { path: 'notes.md', content: '# Notes\n' } }, { text: 'All done' }];
const ENDED = ['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'];
/** A prompt holding this gets a model that runs `sleep 600`, for a cancel to end. */
const STALL = 'STALL-41c9';
/** Where the image holds the CLIs' packages, as an image built with `npm install` in /opt/agent would. */
const IN_IMAGE = '/opt/agent/node_modules';
/** The CLIs run here: all three, each at `.bin/<type>` in the image. */
const CLIS: CliProfile[] = [CLAUDE, CODEX, GEMINI];

/** One agentrun on a memory store over `executor`, with the team secret `model-key`. */
async function agentrunOn(executor: Executor) {
  const store = createMemoryStore();
  const agentrun: AgentRun = createAgentRun({ store, secretKey: KEY, executor });
  const key = await createApiKey(store.apiKeys, principal);
  const api = (method: string, path: string, body?: unknown) =>
    agentrun.fetch(
      new Request(`http://agentrun.test/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  const put = await api('PUT', '/team/secrets/model-key', { value: API_KEY });
  if (put.status >= 300) throw new Error(`PUT secret: ${put.status} ${await put.text()}`);
  const errors: unknown[] = [];
  const worker: Worker = agentrun.worker({ concurrency: 2, pollIntervalMs: 20, onError: (e) => errors.push(e) });
  worker.start();
  return {
    agentrun,
    api,
    errors,
    stop: () => worker.stop(),
    async start(cli: CliProfile, prompt: string): Promise<string> {
      const res = await api('POST', '/agent/run', {
        prompt,
        config: { harness: { type: cli.type, auth_secret_name: 'model-key' }, model_id: cli.model, base_prompt: BASE },
      });
      const { run_id } = (await res.json()) as { run_id: string };
      if (res.status !== 200) throw new Error(`create: ${res.status} ${run_id}`);
      return run_id;
    },
    events: async (runId: string) =>
      (await store.runEvents.list(runId, { limit: 10_000 }))
        .filter((e) => e.type !== 'state')
        .map(({ type, data }) => ({ type, data: data as Record<string, unknown> })),
    async ended(runId: string): Promise<RunItem> {
      let run = await agentrun.services.runs.get(principal, runId);
      await until(
        async () => {
          run = await agentrun.services.runs.get(principal, runId);
          return ENDED.includes(run.state);
        },
        `run ${runId} to end`,
        120_000,
      );
      return run;
    },
    async run(cli: CliProfile, prompt: string): Promise<{ run: RunItem; events: { type: string; data: Record<string, unknown> }[] }> {
      const runId = await this.start(cli, prompt);
      const run = await this.ended(runId);
      return { run, events: await this.events(runId) };
    },
  };
}

/** A transcript as both executors should give it: the events' types, the tools called, the texts; no ids or paths. */
const comparable = (events: { type: string; data: Record<string, unknown> }[]) =>
  events
    .filter((e) => e.type === 'tool_call' || e.type === 'tool_result' || e.type === 'output')
    .map((e) => (e.type === 'tool_call' ? { type: e.type, name: e.data.name } : e.type === 'output' ? e : { type: e.type }));

describe.skipIf(skipped)(`agent CLIs in the container executor on Podman${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let podman: Podman;
  let model: ModelServer;
  let image: string;
  let root: string;
  let executor: ContainerExecutor;
  let inContainer: Awaited<ReturnType<typeof agentrunOn>>;
  let inProcess: Awaited<ReturnType<typeof agentrunOn>>;

  beforeAll(async () => {
    if (missing) throw new Error(`CI=true and Podman cannot be had here: ${missing}`);
    podman = await startPodman();
    model = await startModelServer(
      CLIS.map((c) => c.api),
      SCRIPT,
      [{ when: STALL, step: { shell: 'sleep 600' } }],
    );
    // Claude Code's package holds its native program (bin/claude.exe, put there by its postinstall); its Bash tool wants bash.
    // Codex's is a Node script starting the native program of its platform's package (static, musl); Gemini CLI's one bundled script.
    const claude = join(repo, 'node_modules/@anthropic-ai/claude-code');
    image = nodeImage(podman, {
      trees: {
        [`${IN_IMAGE}/@anthropic-ai/claude-code`]: claude,
        [`${IN_IMAGE}/@openai/codex`]: join(repo, 'node_modules/@openai/codex'),
        [`${IN_IMAGE}/@openai/codex-linux-x64`]: join(repo, 'node_modules/@openai/codex-linux-x64'),
        [`${IN_IMAGE}/@google/gemini-cli`]: join(repo, 'node_modules/@google/gemini-cli'),
      },
      programs: [realpathSync('/bin/bash')],
      librariesOf: [join(claude, 'bin/claude.exe')],
      links: {
        [`${IN_IMAGE}/.bin/claude`]: '../@anthropic-ai/claude-code/bin/claude.exe',
        [`${IN_IMAGE}/.bin/codex`]: '../@openai/codex/bin/codex.js',
        [`${IN_IMAGE}/.bin/gemini`]: '../@google/gemini-cli/bundle/gemini.js',
        '/bin/bash': realpathSync('/bin/bash'),
      },
    });
    root = mkdtempSync(join(tmpdir(), 'agentrun-container-harness-'));
    executor = containerExecutor({
      engine: podman.engine,
      image,
      harnesses: {
        claude: { path: `${IN_IMAGE}/.bin/claude`, version: packageVersion(claude) },
        codex: { path: `${IN_IMAGE}/.bin/codex` },
        gemini: { path: `${IN_IMAGE}/.bin/gemini` },
      },
      endpoints: endpointsOf(model),
      // The model server is on this host's 127.0.0.1: the container shares the host's network to reach it.
      network: 'host',
      workspaceRoot: join(root, 'container'),
      killGraceMs: 1000,
      host: `test-host-${process.pid}`,
      memoryMb: 1024,
    });
    inContainer = await agentrunOn(executor);
    inProcess = await agentrunOn(
      processExecutor({
        harnesses: Object.fromEntries(CLIS.map((c) => [c.type, { path: join(repo, 'node_modules/.bin', c.type) }])),
        endpoints: endpointsOf(model),
        // Gemini CLI does not end on SIGTERM.
        killGraceMs: 500,
        workspaceRoot: join(root, 'process'),
        sessionIdleMs: 0,
      }),
    );
  }, 600_000);
  afterAll(async () => {
    await inContainer?.stop();
    await inProcess?.stop();
    await model?.close();
    await podman?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('lists the declared CLIs beside the command harness', async () => {
    expect(await executor.harnesses?.()).toEqual([
      { type: 'claude', version: packageVersion(join(repo, 'node_modules/@anthropic-ai/claude-code')) },
      { type: 'codex' },
      { type: 'gemini' },
      { type: 'command', default: true },
    ]);
  });

  it.each(CLIS)(
    'runs $type in the container: SUCCEEDED with the process executor’s transcript for the same script, its key from the team secret',
    async (cli) => {
      const [container, process] = await Promise.all([inContainer.run(cli, 'Make the files'), inProcess.run(cli, 'Make the files')]);
      expect(process.run.state, JSON.stringify(process.run.status_message)).toBe('SUCCEEDED');
      expect(container.run.state, JSON.stringify([container.run.status_message, inContainer.errors.map(String)])).toBe('SUCCEEDED');
      expect(container.run.status_message?.message).toBe('All done');
      expect(process.run.status_message?.message).toBe('All done');
      expect(container.run.request_usage?.input_tokens).toBeGreaterThan(0);
      expect(comparable(container.events)).toEqual(comparable(process.events));
      expect(comparable(container.events).map((e) => e.type)).toEqual(['tool_call', 'tool_result', 'tool_call', 'tool_result', 'output']);
      // The CLI worked in the container's workspace, as the agent's user: the shell's file and the written one.
      const results = container.events.filter((e) => e.type === 'tool_result').map((e) => JSON.stringify(e.data));
      expect(results.join('\n')).not.toMatch(/error|denied/i);
      // The key and the base prompt reached the model server from the container, the key nowhere the team reads.
      const requests = model.requests.filter((r) => r.api === cli.api.name);
      expect(requests.every((r) => cli.keyOf(r) === API_KEY)).toBe(true);
      expect(requests.every((r) => JSON.stringify(r.body).includes(BASE))).toBe(true);
      expect(JSON.stringify([container.events, container.run, inContainer.errors.map(String)])).not.toContain(API_KEY);
      // Nothing left on the engine.
      expect(await executor.engine.list([`agentrun.run=${container.run.run_id}`])).toEqual([]);
    },
    240_000,
  );

  it('cancels a CLI mid-turn: the run CANCELLED, its container stopped and removed', async () => {
    const runId = await inContainer.start(CLAUDE, `${STALL}: wait`);
    await until(async () => (await inContainer.events(runId)).some((e) => e.type === 'tool_call'), 'the sleep called', 60_000);
    expect(await executor.engine.list([`agentrun.run=${runId}`])).toHaveLength(1);
    await inContainer.agentrun.services.runs.cancel(principal, runId);
    expect((await inContainer.ended(runId)).state).toBe('CANCELLED');
    await until(async () => (await executor.engine.list([`agentrun.run=${runId}`])).length === 0, 'the container removed');
  }, 120_000);

  it('fails a run naming a CLI the executor was not given: harness_unavailable; lists the command harness alone', async () => {
    const bare = containerExecutor({ engine: podman.engine, image, host: `test-host-${process.pid}` });
    expect(await bare.harnesses?.()).toEqual([{ type: 'command', default: true }]);
    const input = { run: { run_id: 'run-bare', agent_config: { harness: { type: 'claude' } } }, attempt: 1, followups: [] };
    const outcome = await bare.execute(input as unknown as ExecutionInput, {} as ExecutionContext);
    expect(outcome).toMatchObject({ status: 'failed', error_code: 'harness_unavailable' });
  });
});

const endpointsOf = (model: ModelServer) => Object.fromEntries(CLIS.map((c) => [c.type, c.endpoint(model.url)]));
const packageVersion = (dir: string) => (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
