import type { AgentRunClient } from '@agentrun/client';

/**
 * The shape of one command (docs/cli.md, "Adding a command"): a file in src/commands/ exports a
 * `Command`, and one line in src/commands/index.ts registers it. Help, flag parsing, the
 * positional count, `--json` and the error classes are done for it by cli.ts.
 */

/** One flag, as node:util `parseArgs` takes it, plus what help shows. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** Repeatable: the values come as an array in order. */
  multiple?: boolean;
  /** Help text. */
  description: string;
  /** Shown after the flag in help: `--state <state>`. Default `value`. */
  valueName?: string;
}

export interface Command {
  /** Its words as typed: `'runs list'`, `'run'`. */
  name: string;
  /** One line for the command list. */
  summary: string;
  /** More help, shown by `agentrun <cmd> --help` under the usage line. */
  description?: string;
  /**
   * Positional arguments as help shows them: `<id>` required, `[prompt]` optional, `<file>...`
   * one or more. The count given is checked against these before `run` is called.
   */
  arguments?: readonly string[];
  options?: Readonly<Record<string, OptionSpec>>;
  /** Whole command lines shown in help. */
  examples?: readonly string[];
  /** Does the work; answers the exit code (exit-codes.ts). Throw `UsageError` (bad flags or arguments: help is pointed to), `InvalidInputError` or `CliError`, or let the client's errors through. */
  run(context: Context): Promise<number>;
}

/** Where a command reads and writes: the process's streams and environment, or a test's. */
export interface Io {
  /** `columns`: a terminal's width, which `--follow`'s tool lines keep to. */
  stdout: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
}

/** What a command's `run` gets: its parsed arguments and the ways to answer. */
export interface Context {
  readonly io: Io;
  /** `--json`: print the API's JSON instead of tables. */
  readonly json: boolean;
  readonly positionals: readonly string[];
  /** A string flag's value (the last one given when repeated and not `multiple`). */
  string(name: string): string | undefined;
  /** A string flag that must be given. */
  requireString(name: string): string;
  /** Every value of a `multiple` string flag, in order. */
  strings(name: string): string[];
  flag(name: string): boolean;
  /** The API client, made on first use from the environment or profile (config.ts); a missing key is a usage error. */
  client(): AgentRunClient;
  /** Write a line (or lines) to stdout, control characters shown as `�` (terminal-text.ts). */
  print(text: string): void;
  /** Write a value to stdout as JSON, one document (no raw control character: terminal-text.ts). */
  printJson(value: unknown): void;
  /** Write a line to stderr (progress, notes; never data), control characters shown as `�`. */
  note(text: string): void;
}
