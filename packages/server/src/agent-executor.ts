import type { Executor } from '@agentrun/core';
import { type KeepWorkspaces, processExecutor } from '@agentrun/executor-process';

/** The executor the environment chose, and its name for the start-up banner. */
export interface ChosenExecutor {
  name: 'demo' | 'process';
  /** Undefined for the demo executor, which the reference server makes itself. */
  executor?: Executor;
}

/**
 * `AGENTRUN_EXECUTOR=demo|process` (default demo, so `npm start` needs nothing more). With
 * `process`, `AGENTRUN_AGENT_COMMAND` is the agent's command line, run through the shell in each
 * run's workspace (docs/executors.md, "The process executor"; README.md, "Try it"). Throws an
 * Error naming the variable that is wrong.
 */
export function executorFromEnvironment(env: Readonly<Record<string, string | undefined>>): ChosenExecutor {
  const kind = env.AGENTRUN_EXECUTOR || 'demo';
  if (kind === 'demo') return { name: 'demo' };
  if (kind !== 'process') throw new Error(`AGENTRUN_EXECUTOR must be demo or process, got ${JSON.stringify(kind)}`);
  const command = env.AGENTRUN_AGENT_COMMAND;
  if (!command) throw new Error('AGENTRUN_AGENT_COMMAND is required with AGENTRUN_EXECUTOR=process: the command line that runs the agent');
  const timeoutMs = whole(env, 'AGENTRUN_AGENT_TIMEOUT_MS');
  const killGraceMs = whole(env, 'AGENTRUN_AGENT_KILL_GRACE_MS');
  const maxWorkspaceBytes = whole(env, 'AGENTRUN_AGENT_MAX_WORKSPACE_BYTES');
  const maxOutputBytes = whole(env, 'AGENTRUN_AGENT_MAX_OUTPUT_BYTES');
  const allow = env.AGENTRUN_AGENT_ENV_ALLOW?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  try {
    return {
      name: 'process',
      executor: processExecutor({
        command,
        shell: true,
        ...(allow?.length ? { env: { allow } } : {}),
        ...(env.AGENTRUN_WORKSPACE_ROOT ? { workspaceRoot: env.AGENTRUN_WORKSPACE_ROOT } : {}),
        ...(env.AGENTRUN_KEEP_WORKSPACES ? { keepWorkspaces: env.AGENTRUN_KEEP_WORKSPACES as KeepWorkspaces } : {}),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        ...(killGraceMs !== undefined ? { killGraceMs } : {}),
        ...(maxWorkspaceBytes !== undefined ? { maxWorkspaceBytes } : {}),
        ...(maxOutputBytes !== undefined ? { maxOutputBytes } : {}),
      }),
    };
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    // The option's name maps to its variable: AGENTRUN_AGENT_ENV_ALLOW, AGENTRUN_KEEP_WORKSPACES.
    throw new Error(`the process executor's settings: ${error.message}`);
  }
}

function whole(env: Readonly<Record<string, string | undefined>>, name: string): number | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number above 0, got ${JSON.stringify(value)}`);
  return n;
}
