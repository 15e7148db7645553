import type { Executor } from '@agentrun/core';
import { containerExecutor } from '@agentrun/executor-container';
import { type ProcessExecutorOptions, processExecutor } from '@agentrun/executor-process';
import { HARNESS_TYPES as CLI_HARNESS_TYPES, type HarnessType as CliHarnessType } from '@agentrun/harnesses';
import { SettingError } from './read-settings.js';
import { type CliEndpointVariable, type CliPathVariable, cliEndpointVariable, cliPathVariable, type Settings } from './settings.js';

/** The executor the environment chose, and its name for the start-up banner. */
export interface ChosenExecutor {
  name: 'demo' | 'process' | 'container';
  /** Undefined for the demo executor, which the reference server makes itself. */
  executor?: Executor;
}

/** The settings this module reads (settings.ts, "The process executor" and "Isolating the agent"). */
type ExecutorSettings = Pick<
  Settings,
  | 'AGENTRUN_EXECUTOR'
  | 'AGENTRUN_WORKER_HOST'
  | 'AGENTRUN_AGENT_COMMAND'
  | 'AGENTRUN_HARNESSES'
  | CliPathVariable
  | 'AGENTRUN_DEFAULT_HARNESS'
  | 'AGENTRUN_SESSION_IDLE_MS'
  | 'AGENTRUN_AGENT_TIMEOUT_MS'
  | 'AGENTRUN_AGENT_KILL_GRACE_MS'
  | 'AGENTRUN_AGENT_MAX_WORKSPACE_BYTES'
  | 'AGENTRUN_AGENT_DISK_LIMIT'
  | 'AGENTRUN_AGENT_MAX_OUTPUT_BYTES'
  | 'AGENTRUN_AGENT_ENV_ALLOW'
  | 'AGENTRUN_WORKSPACE_ROOT'
  | 'AGENTRUN_KEEP_WORKSPACES'
  | 'AGENTRUN_AGENT_USER'
  | 'AGENTRUN_AGENT_SANDBOX'
  | 'AGENTRUN_AGENT_SANDBOX_READ_ONLY'
  | 'AGENTRUN_AGENT_SANDBOX_READ_WRITE'
  | 'AGENTRUN_AGENT_SANDBOX_NETWORK'
  | 'AGENTRUN_AGENT_CONTAINMENT'
  | 'DOCKER_HOST'
  | 'AGENTRUN_CONTAINER_IMAGE'
  | 'AGENTRUN_CONTAINER_COMMAND'
  | 'AGENTRUN_CONTAINER_MEMORY_MB'
  | 'AGENTRUN_CONTAINER_CPUS'
  | 'AGENTRUN_CONTAINER_PIDS'
  | 'AGENTRUN_CONTAINER_NETWORK'
  | 'AGENTRUN_CONTAINER_USER'
  | 'AGENTRUN_CONTAINER_HARNESSES'
  | CliEndpointVariable
>;

/** Drops the undefined members: an option not set is left to the executor's default. */
const defined = <T extends object>(options: T) =>
  Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };

/**
 * `AGENTRUN_EXECUTOR=demo|process` (default demo, so `npm start` needs nothing more). With
 * `process`, runs go to the agent CLIs installed (docs/harnesses.md) and `AGENTRUN_AGENT_COMMAND`,
 * when set, is the `command` harness: the agent's command line, run through the shell in each
 * run's workspace (docs/executors.md, "The process executor"). `shared`: what the server shares
 * with it (its git layer). A setting the executor refuses (a CLI listed and not installed) is a
 * SettingError naming its variable where one is to blame.
 */
export function executorFromSettings(
  settings: ExecutorSettings,
  shared: Pick<ProcessExecutorOptions, 'repositories'> = {},
): ChosenExecutor {
  if (settings.AGENTRUN_EXECUTOR === 'demo') return { name: 'demo' };
  if (settings.AGENTRUN_EXECUTOR === 'container') return { name: 'container', executor: containerFromSettings(settings, shared) };
  const command = settings.AGENTRUN_AGENT_COMMAND;
  const sandbox = settings.AGENTRUN_AGENT_SANDBOX;
  try {
    return {
      name: 'process',
      executor: processExecutor({
        ...(command ? { command, shell: true } : {}),
        ...harnesses(settings),
        ...defined({
          defaultHarness: settings.AGENTRUN_DEFAULT_HARNESS,
          sessionIdleMs: settings.AGENTRUN_SESSION_IDLE_MS,
          workspaceRoot: settings.AGENTRUN_WORKSPACE_ROOT,
          keepWorkspaces: settings.AGENTRUN_KEEP_WORKSPACES,
          timeoutMs: settings.AGENTRUN_AGENT_TIMEOUT_MS,
          killGraceMs: settings.AGENTRUN_AGENT_KILL_GRACE_MS,
          maxWorkspaceBytes: settings.AGENTRUN_AGENT_MAX_WORKSPACE_BYTES,
          // How the cap is held (docs/executors.md, "Disk limits").
          diskLimit: settings.AGENTRUN_AGENT_DISK_LIMIT,
          maxOutputBytes: settings.AGENTRUN_AGENT_MAX_OUTPUT_BYTES,
          // The agent's isolation and containment (docs/executors.md, "Isolating the agent", "Containment").
          user: settings.AGENTRUN_AGENT_USER,
          containment: settings.AGENTRUN_AGENT_CONTAINMENT,
        }),
        ...(settings.AGENTRUN_AGENT_ENV_ALLOW?.length ? { env: { allow: settings.AGENTRUN_AGENT_ENV_ALLOW } } : {}),
        ...(sandbox
          ? {
              sandbox: {
                kind: sandbox,
                readOnly: settings.AGENTRUN_AGENT_SANDBOX_READ_ONLY ?? [],
                readWrite: settings.AGENTRUN_AGENT_SANDBOX_READ_WRITE ?? [],
                network: settings.AGENTRUN_AGENT_SANDBOX_NETWORK,
              },
            }
          : {}),
        // An environment's repositories come from the server's git cache (docs/repositories.md, "Environments").
        ...shared,
      }),
    };
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    // "option harnesses.claude: claude is not installed here …": the CLIs' variables are to blame.
    throw new SettingError('AGENTRUN_HARNESSES', `the process executor's settings: ${error.message}`);
  }
}

/**
 * The agent CLIs (docs/harnesses.md, "Installing the CLIs"): `AGENTRUN_HARNESSES` = `auto` (each
 * found on PATH, the default) or a list; a program elsewhere by `AGENTRUN_<CLI>_PATH`, which alone
 * names that CLI.
 */
function harnesses(settings: ExecutorSettings): Pick<ProcessExecutorOptions, 'harnesses'> {
  const pathOf = (cli: CliHarnessType) => settings[cliPathVariable(cli)];
  const named = settings.AGENTRUN_HARNESSES;
  const listed = named === 'auto' ? CLI_HARNESS_TYPES.filter((cli) => pathOf(cli)) : named;
  if (named === 'auto' && listed.length === 0) return { harnesses: 'auto' };
  return { harnesses: Object.fromEntries(listed.map((cli) => [cli, pathOf(cli) ? { path: pathOf(cli) } : true])) };
}

/**
 * `AGENTRUN_EXECUTOR=container` (docs/executors.md, "The container executor"): a container per run
 * through the engine at `DOCKER_HOST`, its image, command and limits from the settings (an
 * environment's own image and limits win). A setting the executor refuses is a SettingError
 * naming the variable.
 */
function containerFromSettings(settings: ExecutorSettings, shared: Pick<ProcessExecutorOptions, 'repositories'>) {
  const command = settings.AGENTRUN_CONTAINER_COMMAND;
  const variables = {
    engine: 'DOCKER_HOST',
    image: 'AGENTRUN_CONTAINER_IMAGE',
    memoryMb: 'AGENTRUN_CONTAINER_MEMORY_MB',
    cpus: 'AGENTRUN_CONTAINER_CPUS',
    pids: 'AGENTRUN_CONTAINER_PIDS',
    network: 'AGENTRUN_CONTAINER_NETWORK',
    user: 'AGENTRUN_CONTAINER_USER',
    harnesses: 'AGENTRUN_CONTAINER_HARNESSES',
    endpoints: 'AGENTRUN_CONTAINER_HARNESSES',
  } as const;
  // Each CLI's endpoint from its own variable, as the process executor reads it (docs/executors.md, "Agent CLIs").
  const endpoints = Object.fromEntries(
    CLI_HARNESS_TYPES.flatMap((cli) => {
      const url = settings[cliEndpointVariable(cli)];
      return url ? [[cli, url]] : [];
    }),
  );
  try {
    return containerExecutor({
      ...defined({
        engine: settings.DOCKER_HOST,
        image: settings.AGENTRUN_CONTAINER_IMAGE,
        memoryMb: settings.AGENTRUN_CONTAINER_MEMORY_MB,
        cpus: settings.AGENTRUN_CONTAINER_CPUS,
        pids: settings.AGENTRUN_CONTAINER_PIDS,
        network: settings.AGENTRUN_CONTAINER_NETWORK,
        user: settings.AGENTRUN_CONTAINER_USER,
        harnesses: settings.AGENTRUN_CONTAINER_HARNESSES,
        host: settings.AGENTRUN_WORKER_HOST,
        workspaceRoot: settings.AGENTRUN_WORKSPACE_ROOT,
        timeoutMs: settings.AGENTRUN_AGENT_TIMEOUT_MS,
        killGraceMs: settings.AGENTRUN_AGENT_KILL_GRACE_MS,
        maxOutputBytes: settings.AGENTRUN_AGENT_MAX_OUTPUT_BYTES,
      }),
      ...(command ? { command: ['/bin/sh', '-c', command] } : {}),
      endpoints,
      ...shared,
    });
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    const option = /option (\w+)/.exec(error.message)?.[1];
    const variable = option && option in variables ? variables[option as keyof typeof variables] : 'AGENTRUN_EXECUTOR';
    throw new SettingError(variable, `the container executor's settings: ${error.message}`);
  }
}
