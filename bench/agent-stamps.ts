import { type FSWatcher, watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sharedClock } from './executor-worker.js';

/**
 * The stamps the `executor` bench's agent (bench/executor-agent.mjs) leaves in the stamps
 * directory, and the end of the agent's process group. Stamps carry their own time, so how soon
 * one is noticed is not timed: they are awaited through the directory's change events (inotify),
 * not by polling, so the bench does not burn the CPU the workers are timed on (with a slow poll
 * besides, should an event be missed). The group's end has no event a non-parent can wait on:
 * it is polled every GROUP_POLL_MS with kill(-pgid, 0), a syscall and nothing more.
 */

const FALLBACK_POLL_MS = 50;
const GROUP_POLL_MS = 1;

export class AgentStamps {
  private readonly wake = new Map<string, () => void>();
  private readonly watcher: FSWatcher;

  constructor(private readonly dir: string) {
    this.watcher = watch(dir, (_event, name) => {
      if (name) this.wake.get(name)?.();
    });
  }

  /** When the agent started (shared clock) and its pid, which is its process group's id. */
  async started(runId: string, deadline: number): Promise<{ at: number; pid: number }> {
    const [at, pid] = (await this.text(`${runId}.start`, deadline)).split(' ').map(Number);
    return { at: at as number, pid: pid as number };
  }

  /** When the agent received SIGTERM (shared clock). */
  async terminated(runId: string, deadline: number): Promise<number> {
    return Number(await this.text(`${runId}.term`, deadline));
  }

  close(): void {
    this.watcher.close();
  }

  private async text(name: string, deadline: number): Promise<string> {
    for (;;) {
      // Listening before looking: a stamp renamed into place in between still wakes the wait.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const woken = new Promise<void>((resolve) => {
        this.wake.set(name, resolve);
        timer = setTimeout(resolve, Math.max(0, Math.min(FALLBACK_POLL_MS, deadline - performance.now())));
      });
      const text = await readFile(join(this.dir, name), 'utf8').catch(() => undefined);
      if (!text && performance.now() < deadline) await woken;
      clearTimeout(timer);
      this.wake.delete(name);
      if (text) return text;
      if (performance.now() >= deadline) throw new Error(`no stamp ${name} from the agent within the deadline`);
    }
  }
}

/**
 * When (shared clock) no process of the group `pgid` was left, reaped ones included: a zombie
 * still counts until its parent (the worker) has waited for it.
 */
export async function groupGone(pgid: number, deadline: number): Promise<number> {
  while (performance.now() < deadline) {
    try {
      process.kill(-pgid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return sharedClock();
      throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, GROUP_POLL_MS));
  }
  throw new Error(`the agent's process group ${pgid} was still there at the deadline`);
}
