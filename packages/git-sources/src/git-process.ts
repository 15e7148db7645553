import { spawn } from 'node:child_process';
import { RepositoryError } from '@agentrun/core';

/** One git call's outcome. stdout is bounded; stderr keeps its first 8 KiB (enough to classify). */
export interface GitResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  /** The call outlived its timeout and was killed. */
  timedOut: boolean;
  /** stdout passed `maxStdoutBytes`; the call was killed and `stdout` holds only the first bytes. */
  overflowed: boolean;
}

export interface GitCall {
  gitPath: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  maxStdoutBytes: number;
  stdin?: string;
  /**
   * A lock file held (flock(1), util-linux) for the whole call: processes sharing a cache wait for
   * each other's fetch. The kernel drops the lock when git ends, however it ends, so a crashed
   * holder leaves no stale lock behind.
   */
  lockFile?: string;
}

/** flock's exit code when the lock could not be had in time. */
const LOCK_BUSY = 75;

const STDERR_KEPT = 8 * 1024;

/**
 * Runs git once, with a timeout and bounded output (docs/repositories.md, "The git layer"). Never
 * rejects on git's own failure (the caller classifies `stderr`); rejects only when git cannot be
 * started at all.
 */
export function runGit(call: GitCall): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const [program, args] =
      call.lockFile === undefined
        ? [call.gitPath, call.args]
        : ['flock', ['-E', String(LOCK_BUSY), '-w', String(Math.ceil(call.timeoutMs / 1000)), call.lockFile, call.gitPath, ...call.args]];
    // Its own process group, so a timeout ends git's helpers (git-remote-https, flock's child) too.
    const child = spawn(program, args, { env: call.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Ended already.
      }
    };
    const chunks: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let timedOut = false;
    let overflowed = false;
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, call.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      if (overflowed) return;
      stdoutBytes += chunk.length;
      if (stdoutBytes > call.maxStdoutBytes) {
        overflowed = true;
        chunks.push(chunk.subarray(0, chunk.length - (stdoutBytes - call.maxStdoutBytes)));
        kill();
        return;
      }
      chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_KEPT) stderr += chunk.toString('utf8').slice(0, STDERR_KEPT - stderr.length);
    });
    // git may exit before it reads stdin (a missing object); that EPIPE is not our failure.
    child.stdin.on('error', () => {});
    child.stdin.end(call.stdin ?? '');
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new RepositoryError('unreachable', `git could not be started (${(error as NodeJS.ErrnoException).code ?? error.message})`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const lockBusy = call.lockFile !== undefined && code === LOCK_BUSY;
      resolve({ code, stdout: Buffer.concat(chunks), stderr, timedOut: timedOut || lockBusy, overflowed });
    });
  });
}
