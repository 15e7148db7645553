import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isRunning, until } from './support/agents.js';

describe('the watchdog', () => {
  it('one for many runs: a worker killed with SIGKILL leaves none of the groups it held, and spares the one it released', async () => {
    const script = fileURLToPath(new URL('./support/watchdog-holder.ts', import.meta.url));
    const child = spawn(process.execPath, ['--conditions=agentrun-source', '--import', 'tsx', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let pids: { held: number[]; released: number } | undefined;
    try {
      createInterface({ input: child.stdout }).on('line', (line) => {
        pids = JSON.parse(line);
      });
      await until(() => pids !== undefined, 'the holder to start its agents', 15_000);
      const { held, released } = pids as { held: number[]; released: number };
      expect([...held, released].every(isRunning)).toBe(true);
      child.kill('SIGKILL');
      await until(() => !held.some(isRunning), 'the held groups to be ended');
      // Signalled in the same breath as the held ones, had it been held.
      expect(isRunning(released)).toBe(true);
    } finally {
      child.kill('SIGKILL');
      if (pids && isRunning(pids.released)) process.kill(-pids.released, 'SIGKILL');
    }
  });
});
