import { checkOptions } from '@agentrun/core/internal';
import * as v from 'valibot';
import { DEFAULT_MAX_OUTPUT_BYTES } from './output-budget.js';

/** What `processExecutor` takes (docs/executors.md, "The process executor"). */
export interface ProcessExecutorOptions {
  /** The agent's program, or with `shell: true` its whole command line (run by `/bin/sh -c`). */
  command: string;
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
  /** A run whose directory grows beyond this fails with `error_code: 'disk_limit'`. Default: no cap. */
  maxWorkspaceBytes?: number;
  /**
   * The most bytes of the agent's stdout lines a run keeps; past it, one marker and the rest read
   * and dropped (docs/executors.md, "Output budget"). Default 16 MiB.
   */
  maxOutputBytes?: number;
  /** Hears what goes wrong beside the run (a progress write, a cleanup). Default: console.error. */
  onError?: (error: unknown) => void;
}

export type KeepWorkspaces = 'never' | 'on-failure' | 'always';

export interface ResolvedOptions {
  command: string;
  args: readonly string[];
  shell: boolean;
  workspaceRoot: string;
  allow: readonly string[];
  set: Readonly<Record<string, string>>;
  timeoutMs: number | undefined;
  killGraceMs: number;
  keepWorkspaces: KeepWorkspaces;
  maxWorkspaceBytes: number | undefined;
  maxOutputBytes: number;
  onError: (error: unknown) => void;
}

const ENV_NAME = v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be environment variable names'));
const positiveInt = v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(1, 'must be at least 1'));

const OptionsSchema = v.strictObject({
  command: v.pipe(v.string('must be a string'), v.nonEmpty('must not be empty')),
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
  keepWorkspaces: v.optional(v.picklist(['never', 'on-failure', 'always'], "must be 'never', 'on-failure' or 'always'")),
  maxWorkspaceBytes: v.optional(positiveInt),
  maxOutputBytes: v.optional(positiveInt),
  onError: v.optional(v.custom<(e: unknown) => void>((x) => typeof x === 'function', 'must be a function')),
});

/** Checked at construction: a wrong option is a TypeError naming it, not a surprise at the first run. */
export function resolveOptions(options: ProcessExecutorOptions, defaultRoot: string): ResolvedOptions {
  checkOptions('processExecutor', OptionsSchema, options, { command: "the agent's program or command line" });
  return {
    command: options.command,
    args: options.args ?? [],
    shell: options.shell ?? false,
    workspaceRoot: options.workspaceRoot ?? defaultRoot,
    allow: options.env?.allow ?? [],
    set: options.env?.set ?? {},
    timeoutMs: options.timeoutMs,
    killGraceMs: options.killGraceMs ?? 5000,
    keepWorkspaces: options.keepWorkspaces ?? 'never',
    maxWorkspaceBytes: options.maxWorkspaceBytes,
    maxOutputBytes: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    onError: options.onError ?? ((error) => console.error('[agentrun] process executor', error)),
  };
}
