import { readFileSync } from 'node:fs';

/**
 * The labels on every run's container (docs/executors.md, "The container executor", "Labels and
 * cleanup"): which run and attempt it is, which worker process runs it, on which host, and the
 * identity the sweep checks that process's life by. The one list: the executor sets them, the
 * sweep reads them, the tests look for them.
 */
export const LABELS = {
  run: 'agentrun.run',
  attempt: 'agentrun.attempt',
  /** The worker process: `<host>/<pid>`, for a person reading `docker ps`. */
  worker: 'agentrun.worker',
  /** The executor's `host`: the sweep looks only at its own host's containers. */
  host: 'agentrun.host',
  /** `<boot id>/<pid>/<start time>`: alive exactly while that process is (owner.ts). */
  owner: 'agentrun.owner',
} as const;

/** This process's owner label: the machine's boot, its pid, and when it started (pids are reused, start times are not). */
export function ownerIdentity(pid = process.pid): string | undefined {
  const start = startTime(pid);
  return start === undefined ? undefined : `${bootId()}/${pid}/${start}`;
}

/**
 * Whether the process an owner label names still runs on this machine: the same boot, and a
 * process of that pid started at that time. Another machine's (another boot) is not alive here:
 * the sweep only looks at its own host's containers, whose owners ran on this machine.
 */
export function ownerAlive(owner: string): boolean {
  const [boot, pid, start] = owner.split('/');
  if (!boot || !pid || !start || boot !== bootId()) return false;
  return startTime(Number(pid)) === start;
}

let boot: string | undefined;
const bootId = () => {
  boot ??= readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  return boot;
};

/** Field 22 of /proc/<pid>/stat, after the command name (which may hold spaces and parentheses). */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}
