import { type ChildProcess, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';

/**
 * The watchdog: a tiny `sh` process, in its own process group, whose stdin is a pipe from the
 * worker. When the pipe closes (the run ended, or the worker died, even by SIGKILL) `read` returns
 * and it sends SIGTERM to the agent's process group, SIGKILL after the grace period, and exits.
 * This is how no agent outlives its worker (docs/executors.md, "Cancel, timeout and the process
 * group"). A shell, not Node: it starts in about a millisecond, and every run starts one.
 */
const WATCHDOG = `trap '' TERM INT HUP
while read -r _; do :; done
kill -0 "-$1" 2>/dev/null || exit 0
kill -TERM "-$1" 2>/dev/null
sleep "$2"
kill -KILL "-$1" 2>/dev/null
exit 0`;

/** The agent's process group (the agent was spawned `detached`, so its pid is the group id). */
export interface ProcessGroup {
  /** SIGTERM now, SIGKILL after the grace period unless the group is gone by then. */
  terminate(): void;
  /** SIGKILL whatever is left of the group (strays once the agent itself has exited). */
  kill(): void;
  /** Stop the watchdog (after `kill`, so it finds nothing to do). */
  release(): void;
}

export function watchProcessGroup(child: ChildProcess, killGraceMs: number): ProcessGroup {
  const pgid = child.pid as number;
  const watchdog = spawn('/bin/sh', ['-c', WATCHDOG, 'agentrun-watchdog', String(pgid), (killGraceMs / 1000).toFixed(3)], {
    detached: true,
    cwd: tmpdir(),
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  watchdog.on('error', () => {});
  watchdog.stdin?.on('error', () => {});
  watchdog.unref();
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-pgid, name);
    } catch {
      // ESRCH: the group is gone already.
    }
  };
  return {
    terminate() {
      signal('SIGTERM');
      graceTimer ??= setTimeout(() => signal('SIGKILL'), killGraceMs);
    },
    kill() {
      signal('SIGKILL');
    },
    release() {
      clearTimeout(graceTimer);
      watchdog.stdin?.end();
    },
  };
}
