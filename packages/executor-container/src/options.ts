import { hostname } from 'node:os';
import { checkOptions } from '@agentrun/core/internal';
import { ENDPOINTS, type WorkspaceRepositories } from '@agentrun/executor-process/internal';
import type { HarnessType as CliType } from '@agentrun/harnesses';
import * as v from 'valibot';
import type { ContainerHarnesses } from './container-harness.js';
import { DEFAULT_ENGINE } from './engine-address.js';

/** What `containerExecutor` takes (docs/executors.md, "The container executor"). */
export interface ContainerExecutorOptions {
  /** The engine's API: `unix:///path.sock` or `tcp://host:port`. Default: `DOCKER_HOST`, else `unix:///var/run/docker.sock`. */
  engine?: string;
  /** The image a run starts from when its environment names none. None: such a run fails. */
  image?: string;
  /**
   * The agent's command inside the container, an argv (`{prompt_file}`, `{workspace}`, `{run_id}`
   * and `{attempt}` replaced with the run's values). Default: the image's own entrypoint and command.
   */
  command?: string[];
  /** Values set in the agent's environment (the server's own variables never pass). */
  env?: Record<string, string>;
  /**
   * The agent CLIs the images hold, which runs may name in `config.harness.type` (docs/executors.md,
   * "The container executor", "Agent CLIs"): each `{ path?, version? }`, its path in the image
   * (default: the image's label `agentrun.harness.<type>`, else the CLI's program on the image's
   * PATH). Default: none, the command harness alone.
   */
  harnesses?: ContainerHarnesses;
  /**
   * The model endpoint each CLI is given (docs/harnesses.md, "The model endpoint"): it must be
   * reachable from the container's network (`network`; `none`, the default, reaches nothing).
   */
  endpoints?: { [K in CliType]?: string };
  /** Memory of a run's container, in MiB (swap none), unless its environment's `limits` say. Default 2048. */
  memoryMb?: number;
  /** CPUs of a run's container. Default 1. */
  cpus?: number;
  /** Processes and threads a run's container may have at once. Default 512. */
  pids?: number;
  /** `none` (default: no network but a loopback of its own), or a network the engine has. */
  network?: string;
  /**
   * The agent's user inside the container. Default `65534:65534` (nobody) when the server runs as
   * root, which gives it the workspace; else the server's own uid and gid, who own the workspace.
   */
  user?: { uid: number; gid: number };
  /** Size of the container's /tmp (memory, counted in its memory limit), in MiB. Default 256. */
  tmpMb?: number;
  /** Where each run's workspace is made on this host, bind-mounted into its container. Default `os.tmpdir()/agentrun-container-runs`. */
  workspaceRoot?: string;
  /** A run that takes longer fails with `error_code: 'timeout'`. Default: no limit. */
  timeoutMs?: number;
  /** Between the engine's SIGTERM and SIGKILL on a stop, in ms (rounded up to whole seconds). Default 5000. */
  killGraceMs?: number;
  /** The stdout a run keeps (docs/executors.md, "Output budget"). Default 16 MiB. */
  maxOutputBytes?: number;
  /**
   * This host's name among the engine's containers: every container is labelled with it, and the
   * sweep removes only this host's leftovers. Default: the OS hostname (the reference server passes `AGENTRUN_WORKER_HOST`).
   */
  host?: string;
  /** Where environments' repositories are checked out from (as the process executor's). Default: one `gitSources()`. */
  repositories?: WorkspaceRepositories;
  /** Hears what goes wrong beside the run (a removal, the sweep). Default console.error. */
  onError?: (error: unknown) => void;
}

export interface ResolvedOptions {
  engine: string;
  image: string | undefined;
  command: readonly string[] | undefined;
  set: Readonly<Record<string, string>>;
  harnesses: ContainerHarnesses;
  endpoints: { [K in CliType]?: string };
  limits: { memoryMb: number; cpus: number; pids: number; network: string };
  user: { uid: number; gid: number };
  tmpMb: number;
  workspaceRoot: string;
  timeoutMs: number | undefined;
  killGraceMs: number;
  maxOutputBytes: number;
  host: string;
  repositories: WorkspaceRepositories | undefined;
  onError: (error: unknown) => void;
}

const ENV_NAME = v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be environment variable names'));
const positiveInt = v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(1, 'must be at least 1'));
const id = v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(0, 'must not be negative'), v.maxValue(2 ** 32 - 2));
/** The same names the environments' `limits.network` takes (docs/environments: contracts). */
const NETWORK = v.pipe(v.string(), v.regex(/^(none|[a-zA-Z0-9][a-zA-Z0-9_.-]{0,63})$/, "must be 'none' or a network's name"));

/** One CLI of `harnesses`. */
const harness = v.optional(
  v.strictObject(
    {
      path: v.optional(v.pipe(v.string(), v.nonEmpty('must not be empty'))),
      version: v.optional(v.pipe(v.string(), v.nonEmpty('must not be empty'))),
    },
    'must be { path?, version? }',
  ),
);

const OptionsSchema = v.strictObject({
  engine: v.optional(v.pipe(v.string(), v.regex(/^(unix:\/\/\/|tcp:\/\/|http:\/\/)/, 'must be unix:///path or tcp://host:port'))),
  image: v.optional(v.pipe(v.string(), v.nonEmpty('must not be empty'), v.maxLength(255))),
  command: v.optional(v.pipe(v.array(v.string(), 'must be an array of strings'), v.nonEmpty('must not be empty'))),
  env: v.optional(v.record(ENV_NAME, v.string('must be strings'))),
  harnesses: v.optional(
    v.strictObject(
      { claude: harness, codex: harness, gemini: harness } satisfies Record<CliType, typeof harness>,
      'must be { claude?, codex?, gemini? }',
    ),
  ),
  endpoints: v.optional(ENDPOINTS),
  memoryMb: v.optional(v.pipe(positiveInt, v.minValue(6, 'must be at least 6 (the engine refuses less)'))),
  cpus: v.optional(v.pipe(v.number(), v.minValue(0.01, 'must be at least 0.01'), v.maxValue(1024))),
  pids: v.optional(v.pipe(positiveInt, v.minValue(8, 'must be at least 8'))),
  network: v.optional(NETWORK),
  user: v.optional(v.strictObject({ uid: id, gid: id }, 'must be { uid, gid }')),
  tmpMb: v.optional(positiveInt),
  workspaceRoot: v.optional(v.pipe(v.string(), v.startsWith('/', 'must be an absolute path'))),
  timeoutMs: v.optional(positiveInt),
  killGraceMs: v.optional(v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(0, 'must not be negative'))),
  maxOutputBytes: v.optional(positiveInt),
  host: v.optional(v.pipe(v.string(), v.nonEmpty('must not be empty'), v.maxLength(200))),
  repositories: v.optional(
    v.custom<WorkspaceRepositories>(
      (x) => typeof x === 'object' && x !== null && typeof (x as WorkspaceRepositories).resolve === 'function',
      'must have resolve and checkout functions (gitSources() from @agentrun/git-sources)',
    ),
  ),
  onError: v.optional(v.custom<(e: unknown) => void>((x) => typeof x === 'function', 'must be a function')),
});

/** The defaults of a run's container when neither its environment nor the options say (docs/executors.md, "The container executor"). */
export const CONTAINER_DEFAULTS = { memoryMb: 2048, cpus: 1, pids: 512, network: 'none', tmpMb: 256 } as const;
const NOBODY = { uid: 65534, gid: 65534 };
const DEFAULT_MAX_OUTPUT_BYTES = 16 * 2 ** 20;

/** Checked at construction: a wrong option is a TypeError naming it. */
export function resolveOptions(options: ContainerExecutorOptions, defaultRoot: string): ResolvedOptions {
  checkOptions('containerExecutor', OptionsSchema, options, {});
  return {
    engine: options.engine ?? process.env.DOCKER_HOST ?? DEFAULT_ENGINE,
    image: options.image,
    command: options.command,
    set: options.env ?? {},
    harnesses: options.harnesses ?? {},
    endpoints: options.endpoints ?? {},
    limits: {
      memoryMb: options.memoryMb ?? CONTAINER_DEFAULTS.memoryMb,
      cpus: options.cpus ?? CONTAINER_DEFAULTS.cpus,
      pids: options.pids ?? CONTAINER_DEFAULTS.pids,
      network: options.network ?? CONTAINER_DEFAULTS.network,
    },
    user: options.user ?? NOBODY,
    tmpMb: options.tmpMb ?? CONTAINER_DEFAULTS.tmpMb,
    workspaceRoot: options.workspaceRoot ?? defaultRoot,
    timeoutMs: options.timeoutMs,
    killGraceMs: options.killGraceMs ?? 5000,
    maxOutputBytes: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    host: options.host ?? hostname(),
    repositories: options.repositories,
    onError: options.onError ?? ((error) => console.error('[agentrun] container executor', error)),
  };
}
