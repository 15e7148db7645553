import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ReferenceServer, type ReferenceServerOptions, startReferenceServer } from '@agentrun/server';

/**
 * The command line as a user runs it: a child process on the TypeScript sources (tsx, with the
 * `agentrun-source` condition as everywhere in the tests), against a reference server on the
 * memory store. Each spawn costs about a second, so files share one server and spawn sparingly.
 */

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Written to stdin, then closed (stdin is always a pipe, so never a terminal). */
  input?: string;
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

export function cli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('AGENTRUN_') && value !== undefined) env[name] = value;
  env.HOME = isolatedHome;
  env.XDG_CONFIG_HOME = join(isolatedHome, '.config');
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  const child = spawn(process.execPath, ['--conditions=agentrun-source', '--import', 'tsx', MAIN, ...args], {
    cwd: ROOT,
    env,
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
