import { spawn } from 'node:child_process';

/** What one of the executor's own helper programs left: whether it succeeded, why not, and the ends of what it printed. */
export interface ProgramResult {
  ok: boolean;
  /** Empty when it succeeded; else its stderr, or how it ended. */
  why: string;
  stdout: string;
  stderr: string;
}

/**
 * Where the executor's helpers are found: the server's PATH, then the system's own directories
 * (mkfs lives in sbin), never the agent's PATH (which `env.set` may replace).
 */
export const HELPER_PATH = `${process.env.PATH ?? ''}:/usr/local/sbin:/usr/sbin:/sbin:/usr/bin:/bin`;
/** How much of each stream is kept: the end, which is where a program says why it failed. */
const KEPT_BYTES = 64 * 1024;

/**
 * Runs a program the executor uses around a run (mkfs, mount, du, rm: never the agent) to its
 * end, in a child process so that no work of it is on the server's event loop. Its environment is
 * only PATH and the C locale, whose messages the callers read. It never rejects: a program that
 * could not start is a result that says so.
 */
export function runProgram(command: string, args: readonly string[], options: { timeoutMs?: number } = {}): Promise<ProgramResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: HELPER_PATH, LC_ALL: 'C' },
      ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout = (stdout + chunk).slice(-KEPT_BYTES);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-KEPT_BYTES);
    });
    child.once('error', (error) => {
      const why = `${command} could not run: ${error.message}`;
      resolve({ ok: false, why, stdout, stderr: why });
    });
    child.once('close', (code, signal) => {
      const why = code === 0 ? '' : stderr.trim() || `${command} failed (${signal ?? `exit ${code}`})`;
      resolve({ ok: code === 0, why, stdout, stderr });
    });
  });
}
