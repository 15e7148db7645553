import { readdirSync, readFileSync } from 'node:fs';

/**
 * Processes seen from the host (the test's own /proc, whatever PID namespace an agent runs in)
 * whose environment mentions `marker`: for the hostile suite, an agent's descendants, found by the
 * workspace root in their inherited `AGENTRUN_WORKSPACE`. Zombies do not count (they hold
 * nothing but a pid). Linux only.
 */
export function processesWith(marker: string): number[] {
  const needle = Buffer.from(marker);
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${name}/environ`).includes(needle)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z') found.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Polls `check` until it holds; throws naming `what` after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
