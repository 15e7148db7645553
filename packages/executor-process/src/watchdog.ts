import { type ChildProcess, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';

/**
 * The watchdog: a tiny `sh` process, in a process group of its own, whose stdin is a pipe from the
 * worker. The worker tells it each agent's process group as the agent starts (`+<pgid>`) and when
 * it is done with it (`-<pgid>`). When the pipe closes (the worker died, even by SIGKILL) `read`
 * returns and it sends SIGTERM to every group it still holds, SIGKILL after the grace period, and
 * exits. This is how no agent outlives its worker (docs/executors.md, "Containment").
 *
 * One serves every run of a process with the same grace period, rather than one per run: every
 * spawn forks the worker's whole process on its main thread, which stalls everything else the
 * worker does for milliseconds, more the more memory the worker holds (docs/executors.md,
 * "Measured"), and an agent's own start is one spawn already. A shell, not Node: it starts in
 * about a millisecond and does nothing between lines. Once it holds no group for IDLE_MS its pipe
 * is closed and it exits; the next run starts another.
 */
const SCRIPT = [
  `trap '' TERM INT HUP`,
  `held=' '`,
  `while read -r line; do`,
  `  case $line in`,
  `    +*) held="$held\${line#+} " ;;`,
  `    -*) g=\${line#-}; case $held in *" $g "*) held="\${held%% $g *} \${held#* $g }" ;; esac ;;`,
  `  esac`,
  `done`,
  `case $held in *[0-9]*) ;; *) exit 0 ;; esac`,
  `for g in $held; do kill -TERM "-$g" 2>/dev/null; done`,
  `sleep "$1"`,
  `for g in $held; do kill -KILL "-$g" 2>/dev/null; done`,
  `exit 0`,
].join('\n');

const IDLE_MS = 10_000;

interface Watchdog {
  /** Watch the process group `pgid` from now on. */
  hold(pgid: number): void;
  /** Stop watching it (its agent is done, and whatever it left was killed). */
  release(pgid: number): void;
}

const watchdogs = new Map<number, Watchdog>();

/** This process's watchdog for agents given `killGraceMs` between SIGTERM and SIGKILL. */
export function watchdogFor(killGraceMs: number): Watchdog {
  let watchdog = watchdogs.get(killGraceMs);
  if (!watchdog) {
    watchdog = sharedWatchdog(killGraceMs);
    watchdogs.set(killGraceMs, watchdog);
  }
  return watchdog;
}

function sharedWatchdog(killGraceMs: number): Watchdog {
  const held = new Set<number>();
  let shell: ChildProcess | undefined;
  let idle: ReturnType<typeof setTimeout> | undefined;
  const send = (line: string) => void shell?.stdin?.write(`${line}\n`);
  const start = () => {
    const started = spawn('/bin/sh', ['-c', SCRIPT, 'agentrun-watchdog', (killGraceMs / 1000).toFixed(3)], {
      detached: true,
      cwd: tmpdir(),
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    started.on('error', () => {});
    started.stdin?.on('error', () => {});
    // Neither the process nor its pipe keeps the worker alive; the pipe closes when the worker exits.
    started.unref();
    (started.stdin as { unref?: () => void } | null)?.unref?.();
    started.once('exit', () => {
      if (shell !== started) return;
      // Killed while it held groups: another takes them over.
      shell = undefined;
      if (held.size > 0) start();
    });
    shell = started;
    for (const pgid of held) send(`+${pgid}`);
  };
  return {
    hold(pgid) {
      clearTimeout(idle);
      idle = undefined;
      held.add(pgid);
      if (shell) send(`+${pgid}`);
      else start();
    },
    release(pgid) {
      if (!held.delete(pgid)) return;
      send(`-${pgid}`);
      if (held.size > 0) return;
      idle = setTimeout(() => {
        shell?.stdin?.end();
        shell = undefined;
      }, IDLE_MS);
      idle.unref();
    },
  };
}
