import type { EngineClient } from './engine-client.js';
import { LABELS, ownerAlive } from './labels.js';

/**
 * The sweep of leftover containers (docs/executors.md, "The container executor", "Labels and
 * cleanup"): every container labelled with this host that no live execution holds. Held are the
 * ones this executor runs now (by name: a container being created is held before the engine answers), and any whose owner process still runs on this machine (another
 * worker process of the same host); the rest were left by a process that died (SIGKILL, a crash, a
 * reboot) or by a removal that failed, and go. Returns the ids removed.
 */
export async function removeOrphans(
  engine: EngineClient,
  host: string,
  running: ReadonlySet<string>,
  onError: (error: unknown) => void,
): Promise<string[]> {
  const found = await engine.list([`${LABELS.host}=${host}`]);
  const removed: string[] = [];
  for (const container of found) {
    if (running.has(container.name)) continue;
    const owner = container.labels[LABELS.owner];
    if (owner !== undefined && ownerAlive(owner) && !isMine(owner)) continue;
    try {
      await engine.remove(container.id);
      removed.push(container.id);
    } catch (error) {
      onError(error);
    }
  }
  return removed;
}

/** This process's own containers not in `running` are leftovers of its own (a removal that failed). */
const isMine = (owner: string) => owner.split('/')[1] === String(process.pid) && ownerAlive(owner);
