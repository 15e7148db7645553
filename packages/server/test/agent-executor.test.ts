import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAgentRun, type RunItem } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import { describe, expect, it } from 'vitest';
import { executorFromSettings } from '../src/agent-executor.js';
import { readSettings } from '../src/read-settings.js';

const executorFromEnvironment = (env: Record<string, string>) => executorFromSettings(readSettings(env));

const AGENT = fileURLToPath(new URL('../../executor-process/examples/agent.mjs', import.meta.url));

describe('the reference server executor from its settings', () => {
  it('is the demo executor unless AGENTRUN_EXECUTOR=process', () => {
    expect(executorFromEnvironment({})).toEqual({ name: 'demo' });
    expect(executorFromEnvironment({ AGENTRUN_EXECUTOR: 'demo', AGENTRUN_AGENT_COMMAND: 'x' })).toEqual({ name: 'demo' });
  });

  it('names the variable that is wrong', () => {
    expect(() => executorFromEnvironment({ AGENTRUN_EXECUTOR: 'docker' })).toThrow(
      'AGENTRUN_EXECUTOR must be one of demo, process, container, got "docker"',
    );
    expect(() =>
      executorFromEnvironment({ AGENTRUN_EXECUTOR: 'process', AGENTRUN_HARNESSES: 'claude', AGENTRUN_CLAUDE_PATH: '/nowhere/claude' }),
    ).toThrow(/option harnesses.claude: claude is not installed here \(install @anthropic-ai\/claude-code@2\.1\.332, or give its path\)/);
    expect(() => executorFromEnvironment({ AGENTRUN_EXECUTOR: 'process', AGENTRUN_HARNESSES: 'aider' })).toThrow(
      'AGENTRUN_HARNESSES must be auto or a comma-separated list of claude, codex, gemini, got "aider"',
    );
    expect(() =>
      executorFromEnvironment({ AGENTRUN_EXECUTOR: 'process', AGENTRUN_AGENT_COMMAND: 'a', AGENTRUN_AGENT_TIMEOUT_MS: '1.5' }),
    ).toThrow('AGENTRUN_AGENT_TIMEOUT_MS must be a whole number of milliseconds above 0, got "1.5"');
    expect(() =>
      executorFromEnvironment({ AGENTRUN_EXECUTOR: 'process', AGENTRUN_AGENT_COMMAND: 'a', AGENTRUN_AGENT_MAX_OUTPUT_BYTES: '0' }),
    ).toThrow('AGENTRUN_AGENT_MAX_OUTPUT_BYTES must be a whole number of bytes above 0, got "0"');
    expect(() =>
      executorFromEnvironment({ AGENTRUN_EXECUTOR: 'process', AGENTRUN_AGENT_COMMAND: 'a', AGENTRUN_KEEP_WORKSPACES: 'some' }),
    ).toThrow('AGENTRUN_KEEP_WORKSPACES must be one of never, on-failure, always, got "some"');
    expect(() =>
      executorFromEnvironment({ AGENTRUN_EXECUTOR: 'process', AGENTRUN_AGENT_COMMAND: 'a', AGENTRUN_AGENT_DISK_LIMIT: 'quota' }),
    ).toThrow('AGENTRUN_AGENT_DISK_LIMIT must be one of auto, filesystem, measured, got "quota"');
  });

  it('with container, makes the container executor from DOCKER_HOST and AGENTRUN_CONTAINER_*, naming a wrong one', () => {
    const chosen = executorFromEnvironment({
      AGENTRUN_EXECUTOR: 'container',
      DOCKER_HOST: 'unix:///nowhere/engine.sock',
      AGENTRUN_CONTAINER_IMAGE: 'localhost/agent:1',
      AGENTRUN_CONTAINER_MEMORY_MB: '512',
      AGENTRUN_CONTAINER_CPUS: '0.5',
    });
    expect(chosen.name).toBe('container');
    expect(typeof (chosen.executor as { sweep?: unknown }).sweep).toBe('function');
    const variableOf = (env: Record<string, string>) => {
      try {
        executorFromEnvironment({ AGENTRUN_EXECUTOR: 'container', ...env });
      } catch (error) {
        return [(error as { variable?: string }).variable, (error as Error).message];
      }
      return undefined;
    };
    expect(variableOf({ DOCKER_HOST: 'ssh://host' })).toEqual([
      'DOCKER_HOST',
      "the container executor's settings: containerExecutor: option engine must be unix:///path or tcp://host:port",
    ]);
    expect(variableOf({ AGENTRUN_CONTAINER_NETWORK: 'bad network' })?.[0]).toBe('AGENTRUN_CONTAINER_NETWORK');
    expect(() => executorFromEnvironment({ AGENTRUN_EXECUTOR: 'container', AGENTRUN_CONTAINER_CPUS: 'many' })).toThrow(
      'AGENTRUN_CONTAINER_CPUS must be a number, 0.01 or more, got "many"',
    );
  });

  it('with container, declares the agent CLIs of AGENTRUN_CONTAINER_HARNESSES, refusing a name it does not know', async () => {
    const chosen = executorFromEnvironment({
      AGENTRUN_EXECUTOR: 'container',
      DOCKER_HOST: 'unix:///nowhere/engine.sock',
      AGENTRUN_CONTAINER_HARNESSES: 'claude=/opt/agent/node_modules/.bin/claude, codex',
      ANTHROPIC_BASE_URL: 'http://llm-gateway.internal:8080',
    });
    expect(await chosen.executor?.harnesses?.()).toEqual([{ type: 'claude' }, { type: 'codex' }, { type: 'command', default: true }]);
    expect(() => executorFromEnvironment({ AGENTRUN_EXECUTOR: 'container', AGENTRUN_CONTAINER_HARNESSES: 'claude,aider' })).toThrow(
      /^AGENTRUN_CONTAINER_HARNESSES must be a comma-separated list of claude, codex, gemini/,
    );
    expect(() => executorFromEnvironment({ AGENTRUN_EXECUTOR: 'container', ANTHROPIC_BASE_URL: 'file:///etc' })).toThrow(
      /^ANTHROPIC_BASE_URL must be/,
    );
  });

  it('with process, runs AGENTRUN_AGENT_COMMAND through the shell in the run workspace', async () => {
    const root = mkdtempSync(join(tmpdir(), 'agentrun-server-executor-test-'));
    try {
      const { name, executor } = executorFromEnvironment({
        AGENTRUN_EXECUTOR: 'process',
        AGENTRUN_AGENT_COMMAND: `"${process.execPath}" "${AGENT}" && test -f prompt.md`,
        AGENTRUN_WORKSPACE_ROOT: root,
        AGENTRUN_AGENT_TIMEOUT_MS: '60000',
      });
      expect(name).toBe('process');
      const agentrun = createAgentRun({ store: createMemoryStore(), executor: executor as NonNullable<typeof executor> });
      const worker = agentrun.worker({ pollIntervalMs: 20 });
      worker.start();
      try {
        const { run_id } = (await agentrun.services.runs.create(testPrincipal(), { prompt: 'hello' })).body;
        let run: RunItem;
        do {
          await new Promise((r) => setTimeout(r, 20));
          run = await agentrun.services.runs.get(testPrincipal(), run_id);
        } while (!['SUCCEEDED', 'FAILED', 'ERROR'].includes(run.state));
        expect(run.state).toBe('SUCCEEDED');
        expect(run.session_id).toBe(`session-${run_id}`);
        expect(readdirSync(root)).toEqual([]);
      } finally {
        await worker.stop();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
