import { chmod, mkdir, mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { type Measurement, measureDirectory } from './disk-meter.js';
import type { DiskLimit } from './options.js';
import { removeTree } from './remove-tree.js';
import { type FilesystemTools, filesystemTools, mountRunFilesystem, type RunFilesystem } from './run-filesystem.js';

/**
 * A run's directory (docs/executors.md, "The workspace", "Disk limits"): everything an execution
 * may write, in one place, removed as one. `<root>/<run_id>-<attempt>-<random>/` holds
 *
 *   workspace/  the agent's working directory
 *   tmp/        the agent's /tmp (and /var/tmp) where it is isolated, its TMPDIR everywhere
 *   shm/        the agent's /dev/shm where it is isolated
 *
 * With `maxWorkspaceBytes` the directory is a filesystem of its own (run-filesystem.ts) where
 * one can be had, so the kernel holds the cap over all three; else it is measured (disk-meter.ts).
 * The directory is mode 0711: an agent under its own user passes through to its workspace and
 * cannot list it.
 */
export interface RunArea {
  readonly dir: string;
  readonly workspace: string;
  readonly tmp: string;
  readonly shm: string;
  /** How the cap is held; undefined without one. */
  readonly limit: 'filesystem' | 'measured' | undefined;
  /** The bytes the run has written, with a cap; never walks on the event loop. */
  measure(): Promise<Measurement>;
  /** Everything gone: unmounted and removed, whatever paths the agent made. Rejects, saying why, when something stays. */
  release(): Promise<void>;
}

/** How this executor holds caps, decided once when it is made (options.ts `diskLimit`). */
export type DiskPlan = { kind: 'filesystem'; tools: FilesystemTools } | { kind: 'measured' } | undefined;

export function diskPlan(maxBytes: number | undefined, diskLimit: DiskLimit): DiskPlan {
  if (maxBytes === undefined) return undefined;
  if (diskLimit === 'measured') return { kind: 'measured' };
  const tools = filesystemTools();
  if ('mkfs' in tools) return { kind: 'filesystem', tools };
  if (diskLimit === 'filesystem') throw new Error(`processExecutor: option diskLimit 'filesystem' cannot be had here: ${tools.missing}`);
  return { kind: 'measured' };
}

export async function createRunArea(root: string, name: string, maxBytes: number | undefined, plan: DiskPlan): Promise<RunArea> {
  await mkdir(root, { recursive: true });
  const dir = await mkdtemp(join(root, `${name}-`));
  let filesystem: RunFilesystem | undefined;
  const area: RunArea = {
    dir,
    workspace: join(dir, 'workspace'),
    tmp: join(dir, 'tmp'),
    shm: join(dir, 'shm'),
    limit: plan === undefined ? undefined : plan.kind,
    async measure() {
      if (filesystem) {
        const usage = await filesystem.usage();
        // No inode left is a full disk too: counted as the cap's worth, so the run stops as for bytes.
        return { bytes: usage.noInodes ? Math.max(usage.bytes, (maxBytes ?? 0) + 1) : usage.bytes };
      }
      return measureDirectory(dir);
    },
    async release() {
      // Once unmounted, a second release (after a late checkout wrote into the bare directory) only removes.
      await filesystem?.release();
      filesystem = undefined;
      await removeTree(dir);
    },
  };
  try {
    if (plan?.kind === 'filesystem' && maxBytes !== undefined) filesystem = await mountRunFilesystem(plan.tools, dir, maxBytes);
    await chmod(dir, 0o711);
    await mkdir(area.workspace);
    // Like the host's own: anyone writes, only the owner removes (the agent's user, or a program it runs under another).
    for (const shared of [area.tmp, area.shm]) {
      await mkdir(shared);
      await chmod(shared, 0o1777);
    }
  } catch (error) {
    await area.release().catch(() => {});
    throw error;
  }
  return area;
}
