import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The stamps the `executor` bench's agent (bench/executor-agent.mjs) leaves in the stamps
 * directory, read by polling, and the end of the agent's process group, found by polling too
 * (both every POLL_MS, so they are late by up to about that much).
 */

const POLL_MS = 1;
const pause = () => new Promise((resolve) => setTimeout(resolve, POLL_MS));

/** When the agent started (shared clock) and its pid, which is its process group's id. */
export async function agentStarted(dir: string, runId: string, deadline: number): Promise<{ at: number; pid: number }> {
  const [at, pid] = (await stampText(dir, runId, 'start', deadline)).split(' ').map(Number);
  return { at: at as number, pid: pid as number };
}

/** When the agent received SIGTERM (shared clock). */
export const agentTerminated = async (dir: string, runId: string, deadline: number): Promise<number> =>
  Number(await stampText(dir, runId, 'term', deadline));

async function stampText(dir: string, runId: string, kind: 'start' | 'term', deadline: number): Promise<string> {
  while (performance.now() < deadline) {
    const text = await readFile(join(dir, `${runId}.${kind}`), 'utf8').catch(() => undefined);
    if (text) return text;
    await pause();
  }
  throw new Error(`no ${kind} stamp from the agent of ${runId} within the deadline`);
}

/**
 * Resolves once no process of the group `pgid` is left, reaped ones included: a zombie still
 * counts until its parent (the worker) has waited for it.
 */
export async function groupGone(pgid: number, deadline: number): Promise<void> {
  while (performance.now() < deadline) {
    try {
      process.kill(-pgid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return;
      throw error;
    }
    await pause();
  }
  throw new Error(`the agent's process group ${pgid} was still there at the deadline`);
}
