import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAgentRun, type RunItem } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import { describe, expect, it } from 'vitest';
import { executorFromEnvironment } from '../src/agent-executor.js';

const AGENT = fileURLToPath(new URL('../../executor-process/examples/agent.mjs', import.meta.url));

describe('the reference server executor from the environment', () => {
  it('is the demo executor unless AGENTRUN_EXECUTOR=process', () => {
    expect(executorFromEnvironment({})).toEqual({ name: 'demo' });
    expect(executorFromEnvironment({ AGENTRUN_EXECUTOR: 'demo', AGENTRUN_AGENT_COMMAND: 'x' })).toEqual({ name: 'demo' });
  });

  it('names the variable that is wrong', () => {
    expect(() => executorFromEnvironment({ AGENTRUN_EXECUTOR: 'docker' })).toThrow(/AGENTRUN_EXECUTOR must be demo or process/);
    expect(() =>
      executorFromEnvironment({ AGENTRUN_EXECUTOR: 'process', AGENTRUN_HARNESSES: 'claude', AGENTRUN_CLAUDE_PATH: '/nowhere/claude' }),
    ).toThrow(/option harnesses.claude: claude is not installed here \(install @anthropic-ai\/claude-code@2\.1\.332, or give its path\)/);
    expect(() => executorFromEnvironment({ AGENTRUN_EXECUTOR: 'process', AGENTRUN_HARNESSES: 'aider' })).toThrow(
      /AGENTRUN_HARNESSES must be auto or a list of claude, codex, gemini, got "aider"/,
    );
    expect(() =>
      executorFromEnvironment({ AGENTRUN_EXECUTOR: 'process', AGENTRUN_AGENT_COMMAND: 'a', AGENTRUN_AGENT_TIMEOUT_MS: '1.5' }),
    ).toThrow(/AGENTRUN_AGENT_TIMEOUT_MS must be a whole number/);
    expect(() =>
      executorFromEnvironment({ AGENTRUN_EXECUTOR: 'process', AGENTRUN_AGENT_COMMAND: 'a', AGENTRUN_AGENT_MAX_OUTPUT_BYTES: '0' }),
    ).toThrow(/AGENTRUN_AGENT_MAX_OUTPUT_BYTES must be a whole number above 0/);
    expect(() =>
      executorFromEnvironment({ AGENTRUN_EXECUTOR: 'process', AGENTRUN_AGENT_COMMAND: 'a', AGENTRUN_KEEP_WORKSPACES: 'some' }),
    ).toThrow(/option keepWorkspaces/);
    expect(() =>
      executorFromEnvironment({ AGENTRUN_EXECUTOR: 'process', AGENTRUN_AGENT_COMMAND: 'a', AGENTRUN_AGENT_DISK_LIMIT: 'quota' }),
    ).toThrow(/option diskLimit must be 'auto', 'filesystem' or 'measured'/);
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
