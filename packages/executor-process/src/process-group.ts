import type { ChildProcess } from 'node:child_process';
import { watchdogFor } from './watchdog.js';

/**
 * The agent's process group (the agent was spawned `detached`, so its pid is the group id),
 * watched by this process's watchdog (watchdog.ts) until released, so no agent outlives its worker.
 */
export interface ProcessGroup {
  /** SIGTERM now, SIGKILL after the grace period unless the group is gone by then. */
  terminate(): void;
  /** SIGKILL whatever is left of the group (strays once the agent itself has exited). */
  kill(): void;
  /** Stop watching the group (after `kill`, so the watchdog has nothing left to do for it). */
  release(): void;
}

export function watchProcessGroup(child: ChildProcess, killGraceMs: number): ProcessGroup {
  const pgid = child.pid as number;
  const watchdog = watchdogFor(killGraceMs);
  watchdog.hold(pgid);
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
      watchdog.release(pgid);
    },
  };
}
