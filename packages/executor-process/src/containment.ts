import { spawnSync } from 'node:child_process';
import type { Containment } from './options.js';

/**
 * How an agent's descendants are kept track of and ended (docs/executors.md, "Containment").
 *
 * - `pid-namespace`: the agent runs under a tiny `/bin/sh` init (INIT) as pid 1 of a PID namespace
 *   of its own, with a /proc of its own, made by util-linux `unshare`. When that init exits, the
 *   kernel kills whatever is left in the namespace, `setsid` or double fork or not, so nothing
 *   outlives the run; and the agent sees no process of the server's in /proc.
 * - `process-group`: the agent's process group, as before, plus a sweep of /proc for processes
 *   that carry the run's workspace in their environment (what a descendant that left the group
 *   still has, unless it cleared its environment).
 */
export type ContainmentKind = 'pid-namespace' | 'process-group';

/**
 * The namespace's pid 1. The kernel delivers to a namespace's init only the signals it handles, so
 * it traps SIGTERM (what a cancel, a timeout and the watchdog send to the process group; `unshare`
 * itself blocks it) and passes it to every process of the namespace (`kill -1`), then waits until
 * they are all gone (their grace), and exits; the executor's SIGKILL after `killGraceMs` ends it
 * sooner. The agent gets init's stdin through fd 3: without job control a background job's
 * stdin is /dev/null before its own redirections apply, so `<&0` would give it /dev/null; init
 * then lets go of the pipe. The shell's PWD is not passed on (the agent's environment is the
 * executor's). On the agent's own exit, init exits with its status at once, and the kernel ends
 * every descendant left.
 */
export const INIT = [
  'unset PWD OLDPWD',
  'stopping=',
  `trap 'stopping=1; kill -TERM -1 2>/dev/null' TERM INT HUP`,
  'exec 3<&0',
  '"$@" <&3 3<&- &',
  'pid=$!',
  'exec 0</dev/null 3<&-',
  '[ -z "$stopping" ] || kill -TERM "$pid" 2>/dev/null',
  'while :; do wait "$pid"; status=$?; kill -0 "$pid" 2>/dev/null || break; done',
  'if [ -n "$stopping" ]; then while kill -0 -1 2>/dev/null; do sleep 0.05; done; fi',
  'exit "$status"',
].join('\n');

/** `unshare`'s arguments for a PID namespace with its own /proc; without root, in a user namespace of our uid. */
export function unshareArgs(): string[] {
  const asRoot = process.geteuid?.() === 0;
  return [...(asRoot ? [] : ['--user', '--map-current-user']), '--pid', '--fork', '--kill-child', '--mount-proc'];
}

let probe: { ok: true } | { ok: false; why: string } | undefined;

/** Whether a PID namespace can be had here: tried once per process (`unshare … true`). */
export function pidNamespaceProbe(): { ok: true } | { ok: false; why: string } {
  if (!probe) {
    const result = spawnSync('unshare', [...unshareArgs(), 'true'], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
    probe =
      result.status === 0
        ? { ok: true }
        : {
            ok: false,
            why: result.error ? `unshare could not run: ${result.error.message}` : `unshare failed: ${String(result.stderr).trim()}`,
          };
  }
  return probe;
}

/** The containment a run gets with these options; throws when one that was required cannot be had. */
export function chooseContainment(containment: Containment, sandboxed: boolean): ContainmentKind {
  if (containment === 'process-group') {
    if (sandboxed) throw new TypeError("processExecutor: option sandbox needs a PID namespace: containment must not be 'process-group'");
    return 'process-group';
  }
  const probed = pidNamespaceProbe();
  if (probed.ok) return 'pid-namespace';
  if (containment === 'pid-namespace' || sandboxed) {
    throw new Error(
      `processExecutor: ${sandboxed ? 'the sandbox needs' : 'containment pid-namespace needs'} a PID namespace, and none can be had here: ${probed.why}`,
    );
  }
  return 'process-group';
}
