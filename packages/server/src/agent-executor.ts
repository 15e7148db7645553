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
 * `process`, runs go to the agent CLIs installed (docs/harnesses.md) and `AGENTRUN_AGENT_COMMAND`,
 * when set, is the `command` harness: the agent's command line, run through the shell in each
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
  // The command harness, optional once an agent CLI is there (docs/harnesses.md).
  const command = env.AGENTRUN_AGENT_COMMAND || undefined;
  const sessionIdleMs = whole(env, 'AGENTRUN_SESSION_IDLE_MS', 0);
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
        ...(command ? { command, shell: true } : {}),
        ...harnessesFromEnvironment(env),
        ...(sessionIdleMs !== undefined ? { sessionIdleMs } : {}),
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

function whole(env: Readonly<Record<string, string | undefined>>, name: string, least = 1): number | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < least)
    throw new Error(`${name} must be a whole number ${least === 0 ? 'of 0 or more' : 'above 0'}, got ${JSON.stringify(value)}`);
  return n;
}

/**
 * The agent CLIs (docs/harnesses.md, "Installing the CLIs"): `AGENTRUN_HARNESSES` = `auto` (each
 * found on PATH, the default) or a comma-separated list of claude, codex, gemini; a program
 * elsewhere by `AGENTRUN_CLAUDE_PATH`, `AGENTRUN_CODEX_PATH`, `AGENTRUN_GEMINI_PATH`; the default
 * harness by `AGENTRUN_DEFAULT_HARNESS`.
 */
function harnessesFromEnvironment(
  env: Readonly<Record<string, string | undefined>>,
): Pick<ProcessExecutorOptions, 'harnesses' | 'defaultHarness'> {
  const named = env.AGENTRUN_HARNESSES?.trim() || 'auto';
  const paths = { claude: env.AGENTRUN_CLAUDE_PATH, codex: env.AGENTRUN_CODEX_PATH, gemini: env.AGENTRUN_GEMINI_PATH };
  const clis = ['claude', 'codex', 'gemini'] as const;
  let harnesses: ProcessExecutorOptions['harnesses'] = 'auto';
  if (named !== 'auto' || Object.values(paths).some(Boolean)) {
    const list =
      named === 'auto'
        ? clis.filter((c) => paths[c])
        : named
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean);
    for (const name of list) {
      if (!(clis as readonly string[]).includes(name))
        throw new Error(`AGENTRUN_HARNESSES must be auto or a list of ${clis.join(', ')}, got ${JSON.stringify(named)}`);
    }
    harnesses = Object.fromEntries(
      list.map((c) => [c, paths[c as (typeof clis)[number]] ? { path: paths[c as (typeof clis)[number]] } : true]),
    );
  }
  const defaultHarness = env.AGENTRUN_DEFAULT_HARNESS?.trim();
  return { harnesses, ...(defaultHarness ? { defaultHarness: defaultHarness as ProcessExecutorOptions['defaultHarness'] } : {}) };
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
