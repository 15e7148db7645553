import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { type ReferenceServer, type ReferenceServerOptions, startReferenceServer } from '@agentrun/server';
import { runCli } from '../src/cli.js';

/**
 * The command line against a reference server on the memory store. `cli()` calls `runCli` in this
 * process with its own streams and environment, as main.ts does with the process's (so a test
 * costs a request, not a Node start); `cliProcess()` starts it as a child process, as a user runs
 * it, for the few tests of what only a process has (its exit status, a piped stdin).
 */

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Written to stdin, then closed. */
  input?: string;
  /** stdin is a terminal (in-process only): `input` is typed at the prompt instead of piped. */
  terminal?: boolean;
  /** Set or (with `undefined`) removed; AGENTRUN_* of the parent are never passed on. */
  env?: Record<string, string | undefined>;
}

/** A reference server whose demo executor works `demoDurationMs` on each run (default: an hour, so runs stay cancellable). */
export const startServer = (options: ReferenceServerOptions = {}): Promise<ReferenceServer> =>
  startReferenceServer({ port: 0, demoDurationMs: 3_600_000, secretKey: new Uint8Array(32).fill(7), ...options });

/** The environment that points the command line at `server`, with a config file that does not exist. */
export const envFor = (server: ReferenceServer): Record<string, string> => ({
  AGENTRUN_API_KEY: server.apiKey,
  AGENTRUN_BASE_URL: server.url,
});

const isolatedHome = mkdtempSync(join(tmpdir(), 'agentrun-cli-home-'));

/** This process's environment without AGENTRUN_*, in a home of its own (no config file), plus `overrides`. */
function environment(overrides: CliOptions['env'] = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('AGENTRUN_') && value !== undefined) env[name] = value;
  env.HOME = isolatedHome;
  env.XDG_CONFIG_HOME = join(isolatedHome, '.config');
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** `agentrun …args` in this process: stdout and stderr captured, neither a terminal. */
export async function cli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: options.terminal ? terminal(options.input ?? '') : Readable.from([Buffer.from(options.input ?? '')]),
    env: environment(options.env),
  });
  return { code, stdout, stderr };
}

/** A stdin that says it is a terminal, on which `typed` arrives as keystrokes. */
function terminal(typed: string): NodeJS.ReadableStream & { isTTY: boolean } {
  const stream = Object.assign(new PassThrough(), { isTTY: true });
  stream.end(typed);
  return stream;
}

/**
 * `agentrun …args` as a child process: Node on the sources through tsx, with the
 * `agentrun-source` condition (docs/development.md, "How packages resolve to their sources"), so
 * it runs the code under test and not a dist/ that may be stale. stdin is a pipe.
 */
export function cliProcess(args: readonly string[], options: Omit<CliOptions, 'terminal'> = {}): Promise<CliResult> {
  const child = spawn(process.execPath, ['--conditions=agentrun-source', '--import', 'tsx', MAIN, ...args], {
    cwd: ROOT,
    env: environment(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdin.end(options.input ?? '');
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The stdout of a `--json` call that must succeed, parsed. */
export async function cliJson<T = unknown>(args: readonly string[], options: CliOptions = {}): Promise<T> {
  const result = await cli([...args, '--json'], options);
  if (result.code !== 0) throw new Error(`agentrun ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}
