import type { ContainerLimits, ExecutionInput } from '@agentrun/core';
import type { ContainerSpec } from './engine-client.js';
import { LABELS } from './labels.js';
import type { ResolvedOptions } from './options.js';

/** Where the run's workspace is inside its container: the agent's working directory and HOME. */
export const CONTAINER_WORKSPACE = '/workspace';

/** Where the run's home is in its container: the host's `<run dir>/home`, bind-mounted read-write. */
export const CONTAINER_HOME = '/home/agent';
/**
 * The first process of a harness run's container, while the CLI's turns run beside it (`exec`):
 * it waits, and ends on the engine's stop (SIGTERM, which a shell as PID 1 would otherwise ignore).
 */
const KEEPER = ['/bin/sh', '-c', 'trap "exit 143" TERM INT; read -r _', 'agentrun-keeper'];

/**
 * A `/bin/sh` that waits for one line on stdin, then becomes the agent (`exec "$@"`): the
 * container's first process while an environment's setup commands run in it (`exec`), released
 * once they succeeded. The agent stays the container's first process: its exit is the
 * container's, and the kernel's OOM kill of it is seen.
 */
const GATE = 'read -r _ && exec "$@"';

/** A run's limits: its environment's, the executor's defaults for what they leave out. */
export const runLimits = (config: ResolvedOptions, limits: ContainerLimits | undefined) => ({ ...config.limits, ...definedOf(limits) });

export interface RunContainer {
  image: string;
  /** The image's own entrypoint and command (its inspect), for a run with no `command` behind the gate. */
  imageArgv: string[];
  input: ExecutionInput;
  /** The host directory bind-mounted at CONTAINER_WORKSPACE. */
  workspace: string;
  env: Record<string, string>;
  owner: string;
  /** Whether the agent waits behind the gate for the setup commands. */
  gated: boolean;
  /**
   * An agent CLI's run: the host directory bind-mounted at CONTAINER_HOME for its home, and the
   * container's first process the keeper, the CLI's turns `exec`s beside it (container-harness.ts).
   */
  harnessHome?: string;
}

/**
 * The container of one run (docs/executors.md, "The container executor"): its image, the agent's
 * command, only the run's own variables, its labels, and the limits: read-only root filesystem,
 * the workspace bind-mounted read-write, a /tmp in memory, no capability, no new privileges, a
 * user that is not root, memory without swap, CPUs, processes, and no network unless one is named.
 */
export function containerSpec(config: ResolvedOptions, run: RunContainer): ContainerSpec {
  const limits = runLimits(config, run.input.environment?.limits);
  const memory = limits.memoryMb * 2 ** 20;
  const argv = config.command?.map((arg) => substitute(arg, run.input));
  const agent = argv ?? run.imageArgv;
  const binds = [`${run.workspace}:${CONTAINER_WORKSPACE}:rw`];
  if (run.harnessHome !== undefined) binds.push(`${run.harnessHome}:${CONTAINER_HOME}:rw`);
  return {
    Image: run.image,
    ...(run.harnessHome !== undefined
      ? { Entrypoint: KEEPER, Cmd: [] }
      : run.gated
        ? { Entrypoint: ['/bin/sh', '-c', GATE, 'agentrun-gate'], Cmd: agent }
        : argv
          ? { Entrypoint: [argv[0] as string], Cmd: argv.slice(1) }
          : {}),
    Env: Object.entries(run.env).map(([name, value]) => `${name}=${value}`),
    WorkingDir: CONTAINER_WORKSPACE,
    User: `${config.user.uid}:${config.user.gid}`,
    Labels: {
      [LABELS.run]: run.input.run.run_id,
      [LABELS.attempt]: String(run.input.attempt),
      [LABELS.worker]: `${config.host}/${process.pid}`,
      [LABELS.host]: config.host,
      [LABELS.owner]: run.owner,
    },
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    OpenStdin: true,
    StdinOnce: false,
    Tty: false,
    HostConfig: {
      Binds: binds,
      Tmpfs: { '/tmp': `rw,nosuid,nodev,size=${config.tmpMb}m,mode=1777` },
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Privileged: false,
      Memory: memory,
      MemorySwap: memory,
      NanoCpus: Math.round(limits.cpus * 1e9),
      PidsLimit: limits.pids,
      NetworkMode: limits.network,
      AutoRemove: false,
    },
  };
}

/** The agent's variables: HOME, TMPDIR, the executor's `env`, the environment's variables, and the run's own last. */
export function containerEnv(config: ResolvedOptions, input: ExecutionInput): Record<string, string> {
  const env: Record<string, string> = { HOME: CONTAINER_WORKSPACE, TMPDIR: '/tmp', ...config.set };
  for (const [name, value] of Object.entries(input.environment?.variables ?? {})) env[name] = value.reveal();
  Object.assign(env, {
    AGENTRUN_RUN_ID: input.run.run_id,
    AGENTRUN_ATTEMPT: String(input.attempt),
    AGENTRUN_WORKSPACE: CONTAINER_WORKSPACE,
    AGENTRUN_PROMPT_FILE: `${CONTAINER_WORKSPACE}/prompt.md`,
    AGENTRUN_MCP_CONFIG: `${CONTAINER_WORKSPACE}/mcp.json`,
  });
  return env;
}

const substitute = (arg: string, input: ExecutionInput) =>
  arg.replace(/\{(workspace|prompt_file|mcp_config|run_id|attempt)\}/g, (_, name: string) =>
    name === 'workspace'
      ? CONTAINER_WORKSPACE
      : name === 'prompt_file'
        ? `${CONTAINER_WORKSPACE}/prompt.md`
        : name === 'mcp_config'
          ? `${CONTAINER_WORKSPACE}/mcp.json`
          : name === 'run_id'
            ? input.run.run_id
            : String(input.attempt),
  );

function definedOf(limits: ContainerLimits | undefined): ContainerLimits {
  const out: ContainerLimits = {};
  for (const [key, value] of Object.entries(limits ?? {})) if (value !== undefined) (out as Record<string, unknown>)[key] = value;
  return out;
}
