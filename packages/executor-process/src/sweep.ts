import { readdir, readFile } from 'node:fs/promises';

/**
 * The process-group containment's sweep (docs/executors.md, "Containment"): every process whose
 * environment holds `entry` (the run's `AGENTRUN_WORKSPACE=<dir>`, unique to the run) gets
 * SIGKILL. A descendant that left the agent's process group (`setsid`, a double fork) still
 * carries the environment it inherited, unless it cleared it. A few passes, as one found may have
 * forked meanwhile. Returns how many it killed. Needs to read the processes' /proc/<pid>/environ:
 * its own user's, or any as root.
 */
export async function sweepByEnvironment(entry: string, passes = 3): Promise<number> {
  const needle = Buffer.from(`\0${entry}\0`);
  let killed = 0;
  for (let pass = 0; pass < passes; pass++) {
    const pids = (await readdir('/proc').catch(() => [] as string[])).filter((name) => /^\d+$/.test(name)).map(Number);
    let found = 0;
    for (const pid of pids) {
      if (pid === process.pid) continue;
      const environ = await readFile(`/proc/${pid}/environ`).catch(() => undefined);
      if (!environ || !Buffer.concat([Buffer.from([0]), environ]).includes(needle)) continue;
      try {
        process.kill(pid, 'SIGKILL');
        found++;
      } catch {
        // Gone already.
      }
    }
    killed += found;
    if (found === 0) break;
  }
  return killed;
}
