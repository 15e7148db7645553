import { HARNESS_TYPES, type HarnessType, type RepositoryAccess } from '@agentrun/core';
import { checkOptions } from '@agentrun/core/internal';
import { HARNESS_TYPES as CLI_HARNESS_TYPES, type HarnessType as CliHarnessType } from '@agentrun/harnesses';
import * as v from 'valibot';
import { DEFAULT_MAX_OUTPUT_BYTES } from './output-budget.js';

/** What `processExecutor` takes (docs/executors.md, "The process executor"). */
export interface ProcessExecutorOptions {
  /**
   * The `command` harness: the agent's program, or with `shell: true` its whole command line (run
   * by `/bin/sh -c`), speaking the JSON-lines protocol (docs/executors.md). Optional when an agent
   * CLI is installed (`harnesses`).
   */
  command?: string;
  /**
   * The agent CLIs a run may name in `config.harness.type` (docs/harnesses.md): `'auto'` (default)
   * each of `claude`, `codex` and `gemini` found on the server's `PATH`; or each named, `true` to
   * look for it on `PATH`, `{ path }` for a program elsewhere (not found: an error at construction).
   */
  harnesses?: HarnessesOption;
  /**
   * What a run with no `config.harness.type` (or `oz`) runs. Default: `command` when a command is
   * given, else the first CLI found of claude, codex, gemini.
   */
  defaultHarness?: HarnessType;
  /**
   * The model endpoint each CLI is given, in the variable it reads (docs/harnesses.md, "The model
   * endpoint"): a gateway, a proxy. The server's, never a run's. Default: the server's own
   * `ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL` and `GOOGLE_GEMINI_BASE_URL`, read at each turn.
   */
  endpoints?: { [K in CliHarnessType]?: string };
  /**
   * How long a CLI's session (its run directory: workspace, home, /tmp) is kept after a turn
   * ended, for a follow-up to continue it (docs/harnesses.md, "Follow-ups"), when the run's
   * `config.idle_timeout_minutes` does not say. Default 10 minutes; 0 keeps none.
   */
  sessionIdleMs?: number;
  /**
   * Arguments; `{workspace}`, `{prompt_file}`, `{mcp_config}`, `{run_id}` and `{attempt}` are
   * replaced with the run's values.
   */
  args?: string[];
  /** Run `command` (and `args`) through the shell. Default false. */
  shell?: boolean;
  /** Where each run's directory is made. Default `os.tmpdir()/agentrun-runs`. */
  workspaceRoot?: string;
  /** The agent's environment beyond the fixed set: names passed through, and values set. */
  env?: { allow?: string[]; set?: Record<string, string> };
  /** A run that takes longer fails with `error_code: 'timeout'`. Default: no limit. */
  timeoutMs?: number;
  /** Between SIGTERM and SIGKILL to the agent's process group. Default 5000. */
  killGraceMs?: number;
  /** When a run's directory is kept after the run. Default `'never'`. */
  keepWorkspaces?: KeepWorkspaces;
  /**
   * A run whose files (its workspace, /tmp and /dev/shm together) grow beyond this fails with
   * `error_code: 'disk_limit'` (docs/executors.md, "Disk limits"). Default: no cap.
   */
  maxWorkspaceBytes?: number;
  /**
   * How `maxWorkspaceBytes` is held: `'filesystem'` a filesystem of that size per run, which the
   * kernel enforces (root, `mkfs.ext4`, loop devices); `'measured'` the run's directory measured
   * by `du` in a child process; `'auto'` (default) the first where it can be had.
   */
  diskLimit?: DiskLimit;
  /**
   * The most bytes of the agent's stdout lines a run keeps; past it, one marker and the rest read
   * and dropped (docs/executors.md, "Output budget"). Default 16 MiB.
   */
  maxOutputBytes?: number;
  /** Hears what goes wrong beside the run (a progress write, a cleanup). Default: console.error. */
  onError?: (error: unknown) => void;
  /**
   * Run the agent as this user and group (docs/executors.md, "Isolating the agent"): the server
   * must run as root (CAP_SETUID and CAP_SETGID alone are not enough: the workspace is chowned,
   * and a non-root server's PID namespace maps only its own uid); the workspace is then the
   * agent's, and the workspace root not listable by it. Default: the server's own user.
   */
  user?: { uid: number; gid: number };
  /** Run the agent in a bubblewrap sandbox that shows it only the system, the workspace and what is granted here. */
  sandbox?: 'bubblewrap' | BubblewrapSandbox;
  /**
   * How the agent's descendants are tracked and ended (docs/executors.md, "Containment"):
   * `'auto'` (default) a PID namespace when one can be had, else the process group;
   * `'pid-namespace'` requires one; `'process-group'` never uses one.
   */
  containment?: Containment;
  /**
   * Where a run's environment's repositories are checked out from (docs/executors.md,
   * "Environments"): `@agentrun/git-sources`' `gitSources({ cacheDir })`, or anything with its
   * `resolve` and `checkout`. Default: one `gitSources()` (remote URLs only, its cache the server
   * user's own: docs/repositories.md, "The cache"), made at the first run that needs it. Each
   * checkout names the run's team, so teams never share cache entries.
   */
  repositories?: WorkspaceRepositories;
}

/** What the executor needs of a git layer to check an environment's repositories out (`@agentrun/git-sources` has both). */
export interface WorkspaceRepositories {
  /** The commit `ref` names (a branch, a tag, `HEAD` or a full SHA); `refresh` fetches it anew. */
  resolve(repository: RepositoryAccess, ref: string, options?: { refresh?: boolean }): Promise<string>;
  /** The files of `commit` written into `destDir`, without a `.git`. */
  checkout(repository: RepositoryAccess, commit: string, destDir: string): Promise<void>;
}

export interface BubblewrapSandbox {
  kind: 'bubblewrap';
  /** Host paths shown read-only at the same path (the agent's program, a toolchain). */
  readOnly?: string[];
  /** Host paths shown read-write at the same path (a cache). */
  readWrite?: string[];
  /** Whether the agent reaches the network. Default true (agents call model APIs). */
  network?: boolean;
}

/** How the agent's descendants are tracked (`containment`): the one list, which the reference server's settings import too. */
export const CONTAINMENTS = ['auto', 'pid-namespace', 'process-group'] as const;
export type Containment = (typeof CONTAINMENTS)[number];

/** Which agent CLIs an executor runs (`harnesses`). */
export type HarnessesOption = 'auto' | { [K in CliHarnessType]?: boolean | { path?: string } };

/** How `maxWorkspaceBytes` is held (`diskLimit`). */
export const DISK_LIMITS = ['auto', 'filesystem', 'measured'] as const;
export type DiskLimit = (typeof DISK_LIMITS)[number];

/** When a run's directory is kept after the run (`keepWorkspaces`). */
export const KEEP_WORKSPACES = ['never', 'on-failure', 'always'] as const;
export type KeepWorkspaces = (typeof KEEP_WORKSPACES)[number];

/** `'a', 'b' or 'c'`: a list as the options' messages name it. */
const quoted = (list: readonly string[]) =>
  `${list
    .slice(0, -1)
    .map((x) => `'${x}'`)
    .join(', ')} or '${list.at(-1)}'`;

export interface ResolvedOptions {
  command: string | undefined;
  harnesses: HarnessesOption;
  defaultHarness: HarnessType | undefined;
  endpoints: { [K in CliHarnessType]?: string };
  sessionIdleMs: number;
  args: readonly string[];
  shell: boolean;
  workspaceRoot: string;
  allow: readonly string[];
  set: Readonly<Record<string, string>>;
  timeoutMs: number | undefined;
  killGraceMs: number;
  keepWorkspaces: KeepWorkspaces;
  maxWorkspaceBytes: number | undefined;
  diskLimit: DiskLimit;
  maxOutputBytes: number;
  onError: (error: unknown) => void;
  user: { uid: number; gid: number } | undefined;
  sandbox: Required<BubblewrapSandbox> | undefined;
  containment: Containment;
  repositories: WorkspaceRepositories | undefined;
}

const ENV_NAME = v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be environment variable names'));
const positiveInt = v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(1, 'must be at least 1'));

const id = v.pipe(
  v.number(),
  v.integer('must be a whole number'),
  v.minValue(0, 'must not be negative'),
  v.maxValue(2 ** 32 - 2, 'must be below 2^32 - 1'),
);
const absolutePaths = v.array(v.pipe(v.string(), v.startsWith('/', 'must be absolute paths')), 'must be an array of paths');

/** One CLI of `harnesses`: looked for on PATH (`true`), not run (`false`), or at a path. */
const cliSetup = v.optional(v.union([v.boolean(), v.strictObject({ path: v.optional(v.pipe(v.string(), v.nonEmpty())) })]));

/** A model endpoint: an http(s) URL. */
const endpoint = v.optional(v.pipe(v.string(), v.url('must be a URL'), v.regex(/^https?:\/\//i, 'must be an http(s) URL')));

/** `endpoints`: each CLI's model endpoint (the container executor's option too). */
export const ENDPOINTS = v.strictObject({ claude: endpoint, codex: endpoint, gemini: endpoint } satisfies Record<
  CliHarnessType,
  typeof endpoint
>);

const OptionsSchema = v.strictObject({
  command: v.optional(v.pipe(v.string('must be a string'), v.nonEmpty('must not be empty'))),
  harnesses: v.optional(
    v.union(
      [
        v.literal('auto'),
        v.strictObject({ claude: cliSetup, codex: cliSetup, gemini: cliSetup } satisfies Record<CliHarnessType, typeof cliSetup>),
      ],
      `must be 'auto' or { ${CLI_HARNESS_TYPES.join(', ')} }, each true, false or { path }`,
    ),
  ),
  endpoints: v.optional(ENDPOINTS),
  defaultHarness: v.optional(v.picklist(HARNESS_TYPES, `must be one of ${HARNESS_TYPES.join(', ')}`)),
  sessionIdleMs: v.optional(v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(0, 'must not be negative'))),
  args: v.optional(v.array(v.string(), 'must be an array of strings')),
  shell: v.optional(v.boolean('must be a boolean')),
  workspaceRoot: v.optional(v.pipe(v.string('must be a string'), v.nonEmpty('must not be empty'))),
  env: v.optional(
    v.strictObject({
      allow: v.optional(v.array(ENV_NAME, 'must be an array of names')),
      set: v.optional(v.record(ENV_NAME, v.string('must be strings'))),
    }),
  ),
  timeoutMs: v.optional(positiveInt),
  killGraceMs: v.optional(v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(0, 'must not be negative'))),
  keepWorkspaces: v.optional(v.picklist(KEEP_WORKSPACES, `must be ${quoted(KEEP_WORKSPACES)}`)),
  maxWorkspaceBytes: v.optional(positiveInt),
  diskLimit: v.optional(v.picklist(DISK_LIMITS, `must be ${quoted(DISK_LIMITS)}`)),
  maxOutputBytes: v.optional(positiveInt),
  onError: v.optional(v.custom<(e: unknown) => void>((x) => typeof x === 'function', 'must be a function')),
  user: v.optional(v.strictObject({ uid: id, gid: id }, 'must be { uid, gid }')),
  sandbox: v.optional(
    v.union(
      [
        v.literal('bubblewrap'),
        v.strictObject({
          kind: v.literal('bubblewrap', "must be 'bubblewrap'"),
          readOnly: v.optional(absolutePaths),
          readWrite: v.optional(absolutePaths),
          network: v.optional(v.boolean('must be a boolean')),
        }),
      ],
      "must be 'bubblewrap' or { kind: 'bubblewrap', readOnly?, readWrite?, network? }",
    ),
  ),
  containment: v.optional(v.picklist(CONTAINMENTS, `must be ${quoted(CONTAINMENTS)}`)),
  repositories: v.optional(
    v.custom<WorkspaceRepositories>(
      (x) =>
        typeof x === 'object' &&
        x !== null &&
        typeof (x as WorkspaceRepositories).resolve === 'function' &&
        typeof (x as WorkspaceRepositories).checkout === 'function',
      'must have resolve and checkout functions (gitSources() from @agentrun/git-sources)',
    ),
  ),
});

/** Checked at construction: a wrong option is a TypeError naming it, not a surprise at the first run. */
export function resolveOptions(options: ProcessExecutorOptions, defaultRoot: string): ResolvedOptions {
  checkOptions('processExecutor', OptionsSchema, options, { command: "the agent's program or command line" });
  return {
    command: options.command,
    harnesses: options.harnesses ?? 'auto',
    defaultHarness: options.defaultHarness,
    endpoints: options.endpoints ?? {},
    sessionIdleMs: options.sessionIdleMs ?? 10 * 60_000,
    args: options.args ?? [],
    shell: options.shell ?? false,
    workspaceRoot: options.workspaceRoot ?? defaultRoot,
    allow: options.env?.allow ?? [],
    set: options.env?.set ?? {},
    timeoutMs: options.timeoutMs,
    killGraceMs: options.killGraceMs ?? 5000,
    keepWorkspaces: options.keepWorkspaces ?? 'never',
    maxWorkspaceBytes: options.maxWorkspaceBytes,
    diskLimit: options.diskLimit ?? 'auto',
    maxOutputBytes: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    onError: options.onError ?? ((error) => console.error('[agentrun] process executor', error)),
    user: options.user,
    sandbox:
      options.sandbox === undefined
        ? undefined
        : typeof options.sandbox === 'string'
          ? { kind: 'bubblewrap', readOnly: [], readWrite: [], network: true }
          : {
              kind: 'bubblewrap',
              readOnly: options.sandbox.readOnly ?? [],
              readWrite: options.sandbox.readWrite ?? [],
              network: options.sandbox.network ?? true,
            },
    containment: options.containment ?? 'auto',
    repositories: options.repositories,
  };
}
