import type { Executor } from '@agentrun/core';
import {
  type Containment,
  type DiskLimit,
  type KeepWorkspaces,
  type ProcessExecutorOptions,
  processExecutor,
} from '@agentrun/executor-process';

/** The executor the environment chose, and its name for the start-up banner. */
export interface ChosenExecutor {
  name: 'demo' | 'process';
  /** Undefined for the demo executor, which the reference server makes itself. */
  executor?: Executor;
}

/**
 * `AGENTRUN_EXECUTOR=demo|process` (default demo, so `npm start` needs nothing more). With
 * `process`, `AGENTRUN_AGENT_COMMAND` is the agent's command line, run through the shell in each
 * run's workspace (docs/executors.md, "The process executor"; README.md, "Try it"). `shared`: what
 * the server shares with it (its git layer). Throws an Error naming the variable that is wrong.
 */
export function executorFromEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  shared: Pick<ProcessExecutorOptions, 'repositories'> = {},
): ChosenExecutor {
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
  const isolation = isolationFromEnvironment(env);
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
        // How the cap is held (docs/executors.md, "Disk limits"): auto, filesystem or measured.
        ...(env.AGENTRUN_AGENT_DISK_LIMIT ? { diskLimit: env.AGENTRUN_AGENT_DISK_LIMIT as DiskLimit } : {}),
        ...(maxOutputBytes !== undefined ? { maxOutputBytes } : {}),
        ...isolation,
        // An environment's repositories come from the server's git cache (docs/repositories.md, "Environments").
        ...shared,
      }),
    };
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    // The option's name maps to its variable: AGENTRUN_AGENT_ENV_ALLOW, AGENTRUN_KEEP_WORKSPACES, AGENTRUN_AGENT_DISK_LIMIT.
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

/**
 * The agent's isolation and containment (docs/executors.md, "Isolating the agent", "Containment"):
 * `AGENTRUN_AGENT_USER=uid:gid`, `AGENTRUN_AGENT_SANDBOX=bubblewrap` with
 * `AGENTRUN_AGENT_SANDBOX_READ_ONLY` / `AGENTRUN_AGENT_SANDBOX_READ_WRITE` (comma-separated paths)
 * and `AGENTRUN_AGENT_SANDBOX_NETWORK=0` to cut it off, and `AGENTRUN_AGENT_CONTAINMENT`.
 */
function isolationFromEnvironment(
  env: Readonly<Record<string, string | undefined>>,
): Pick<ProcessExecutorOptions, 'user' | 'sandbox' | 'containment'> {
  const out: Pick<ProcessExecutorOptions, 'user' | 'sandbox' | 'containment'> = {};
  const user = env.AGENTRUN_AGENT_USER;
  if (user) {
    const match = /^(\d+):(\d+)$/.exec(user);
    if (!match) throw new Error(`AGENTRUN_AGENT_USER must be uid:gid (numbers), got ${JSON.stringify(user)}`);
    out.user = { uid: Number(match[1]), gid: Number(match[2]) };
  }
  const sandbox = env.AGENTRUN_AGENT_SANDBOX;
  if (sandbox) {
    if (sandbox !== 'bubblewrap') throw new Error(`AGENTRUN_AGENT_SANDBOX must be bubblewrap, got ${JSON.stringify(sandbox)}`);
    const paths = (name: string) =>
      env[name]
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean) ?? [];
    const network = env.AGENTRUN_AGENT_SANDBOX_NETWORK;
    if (network !== undefined && network !== '' && network !== '0' && network !== '1') {
      throw new Error(`AGENTRUN_AGENT_SANDBOX_NETWORK must be 0 or 1, got ${JSON.stringify(network)}`);
    }
    out.sandbox = {
      kind: 'bubblewrap',
      readOnly: paths('AGENTRUN_AGENT_SANDBOX_READ_ONLY'),
      readWrite: paths('AGENTRUN_AGENT_SANDBOX_READ_WRITE'),
      network: network !== '0',
    };
  }
  if (env.AGENTRUN_AGENT_CONTAINMENT) out.containment = env.AGENTRUN_AGENT_CONTAINMENT as Containment;
  return out;
}
