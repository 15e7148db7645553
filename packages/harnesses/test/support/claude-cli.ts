import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { claudeHarness } from '../../src/claude/claude-harness.js';
import type { HarnessEvent, HarnessTurn, Invocation } from '../../src/harness.js';

/** The pinned `claude` the repository installs (root devDependencies). */
const CLAUDE = join(resolve(dirname(fileURLToPath(import.meta.url)), '../../../..'), 'node_modules/.bin/claude');

/** A run's two directories, as the executor makes them. */
export interface RunDirectories {
  root: string;
  workspace: string;
  home: string;
}

export function runDirectories(): RunDirectories {
  // realpath: Claude Code names the working directory by its real path, which the tests compare.
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'agentrun-claude-')));
  const workspace = join(root, 'workspace');
  const home = join(root, 'home');
  mkdirSync(workspace);
  mkdirSync(home);
  return { root, workspace, home };
}

export const removeRunDirectories = (dirs: RunDirectories): void => rmSync(dirs.root, { recursive: true, force: true });

export interface CliRun {
  invocation: Invocation;
  code: number | null;
  stdout: string;
  stderr: string;
  events: HarnessEvent[];
}

/**
 * One turn the way the executor runs it: the harness's files written, `claude` spawned in the
 * workspace with a clean environment (PATH, LANG), the invocation's variables, HOME, the key and the
 * endpoint, stdin closed, and each stdout line fed to a fresh parser.
 */
export async function runClaude(
  dirs: RunDirectories,
  turn: Omit<HarnessTurn, 'workspace' | 'home'>,
  endpoint: string,
  apiKey: string,
  options: { without?: readonly string[] } = {},
): Promise<CliRun> {
  const invocation = claudeHarness.invocation({ ...turn, workspace: dirs.workspace, home: dirs.home });
  for (const file of invocation.files) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.content);
  }
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    ...invocation.env,
    HOME: dirs.home,
    [claudeHarness.apiKeyVariable]: apiKey,
    [claudeHarness.endpointVariable]: endpoint,
  };
  // A variable of the invocation's left out, to show what it is for.
  for (const name of options.without ?? []) delete env[name];
  const child = spawn(CLAUDE, invocation.args, { cwd: dirs.workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((done, fail) => {
    child.once('error', fail);
    child.once('close', (exit) => done(exit));
  });
  const parser = claudeHarness.parser();
  const lines = stdout.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const events = [...lines.flatMap((line) => parser.line(line)), ...parser.end()];
  return { invocation, code, stdout, stderr, events };
}
