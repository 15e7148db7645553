import type { SecretValue } from '@agentrun/core';
import type { ResolvedOptions } from './options.js';
import type { Workspace } from './workspace.js';

/** Passed from the server's environment always; everything else only when allowed (docs/executors.md, "The agent's environment"). */
const ALWAYS = ['PATH', 'HOME', 'LANG', 'TMPDIR'] as const;

/**
 * The agent's (and its environment's setup commands') environment: a small fixed set from the
 * server's, the allowed names, `env.set`, the run's environment's variables (its team secrets,
 * revealed here only, into the child's environment: docs/repositories.md, "Environments"), and the
 * run's `AGENTRUN_*` variables last, so nothing overrides them. The server's secrets never pass
 * unless named in `allow`.
 */
export function agentEnvironment(
  server: Readonly<Record<string, string | undefined>>,
  allow: readonly string[],
  set: Readonly<Record<string, string>>,
  run: { runId: string; attempt: number; workspace: Workspace },
  isolated: { HOME?: string; TMPDIR?: string } = {},
  variables: Readonly<Record<string, SecretValue>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [...ALWAYS, ...allow]) {
    const value = server[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, isolated, set);
  for (const [name, value] of Object.entries(variables)) env[name] = value.reveal();
  env.AGENTRUN_RUN_ID = run.runId;
  env.AGENTRUN_ATTEMPT = String(run.attempt);
  env.AGENTRUN_WORKSPACE = run.workspace.dir;
  env.AGENTRUN_PROMPT_FILE = run.workspace.promptFile;
  env.AGENTRUN_MCP_CONFIG = run.workspace.mcpConfigFile;
  return env;
}

/**
 * HOME and TMPDIR (docs/executors.md, "The agent's environment"): under its own user or in a
 * sandbox the server's HOME is not the agent's (not readable, or not there), so HOME is the
 * workspace. TMPDIR is always the run's own: `/tmp` where the agent has a private one (`private`:
 * the sandbox, or its own user in a PID namespace), else the run directory's `tmp/`, so that what
 * programs put there counts against the run's cap and goes with the run. `env.set` still wins.
 */
export function isolatedHome(
  config: Pick<ResolvedOptions, 'user' | 'sandbox'>,
  workspace: Workspace,
  privateTmp: boolean,
): { HOME?: string; TMPDIR: string } {
  const TMPDIR = privateTmp ? '/tmp' : workspace.area.tmp;
  return config.sandbox || config.user ? { HOME: workspace.dir, TMPDIR } : { TMPDIR };
}
