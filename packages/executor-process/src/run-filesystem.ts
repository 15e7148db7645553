import { existsSync } from 'node:fs';
import { open, rmdir, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { HELPER_PATH, runProgram } from './run-program.js';
import { findProgram } from './sandbox.js';

/**
 * A filesystem of its own for one run (docs/executors.md, "Disk limits"): a sparse file holding
 * an ext4 filesystem, loop-mounted on the run's directory. The kernel enforces its size: a write
 * past it fails with ENOSPC whatever the path, a file deleted while open still holds its blocks,
 * and nothing written to it outlives the unmount. Needs root (mount), `mkfs.ext4` (e2fsprogs)
 * and the loop driver; where that cannot be had the executor measures instead (disk-meter.ts).
 */

/** Where the image lives: inside the mount point, hidden by the mount while the run has it. */
const IMAGE = '.agentrun-disk.img';
/** How many bytes a file costs at least, for the inode count: ext4's own ratio for small filesystems. */
const BYTES_PER_INODE = 4096;
/** How long mkfs, mount or umount may take. */
const COMMAND_TIMEOUT_MS = 30_000;

/** Programs the filesystem needs: found once, where root's PATH or the sbin directories have them. */
export interface FilesystemTools {
  mkfs: string;
  mount: string;
  umount: string;
}

/** The tools, or why a filesystem per run cannot be had on this machine (not root, a program missing, no loop driver). */
export function filesystemTools(): FilesystemTools | { missing: string } {
  if (process.geteuid?.() !== 0) return { missing: 'the server does not run as root (mounting needs it)' };
  const mkfs = findProgram('mkfs.ext4', HELPER_PATH);
  const mount = findProgram('mount', HELPER_PATH);
  const umount = findProgram('umount', HELPER_PATH);
  if (!mkfs) return { missing: 'mkfs.ext4 is not installed (on Debian and Ubuntu: apt-get install e2fsprogs)' };
  if (!mount || !umount) return { missing: 'mount and umount are not installed (util-linux)' };
  if (!existsSync('/dev/loop-control')) return { missing: 'the kernel offers no loop devices (/dev/loop-control)' };
  return { mkfs, mount, umount };
}

/** The image's size for a cap: the cap, ext4's own bookkeeping (inode tables, bitmaps) and a margin, so the cap is usable whole. */
const imageBytes = (maxBytes: number): number => maxBytes + Math.ceil(maxBytes / 16) + 4 * 1024 * 1024;

/** What a run's filesystem holds now. */
interface FilesystemUsage {
  /** Bytes in use beyond what the empty filesystem held. */
  bytes: number;
  /** No inode left: no file can be made (a flood of small files ends here). */
  noInodes: boolean;
}

/** A mounted run filesystem. */
export interface RunFilesystem {
  readonly dir: string;
  usage(): Promise<FilesystemUsage>;
  /** Unmounts it (lazily when something still holds it open) and removes the image: everything the run wrote is gone. */
  release(): Promise<void>;
}

/** Makes an image of `imageBytes(maxBytes)` in `dir` (an empty directory) and mounts it there. */
export async function mountRunFilesystem(tools: FilesystemTools, dir: string, maxBytes: number): Promise<RunFilesystem> {
  const image = join(dir, IMAGE);
  const file = await open(image, 'wx', 0o600);
  try {
    await file.truncate(imageBytes(maxBytes));
  } finally {
    await file.close();
  }
  // No journal (the filesystem is thrown away with the run), no reserved blocks, inode tables left
  // unwritten (the image is sparse, and a hole reads as zeros): made in milliseconds, whatever its size.
  await run(tools.mkfs, [
    '-q',
    '-F',
    '-O',
    '^has_journal',
    '-m',
    '0',
    '-i',
    String(BYTES_PER_INODE),
    '-E',
    'nodiscard,lazy_itable_init=1,root_owner=0:0',
    image,
  ]);
  // nosuid and nodev: nothing the agent writes there can raise privileges or open a device.
  await run(tools.mount, ['-t', 'ext4', '-o', 'loop,nosuid,nodev,noatime,noinit_itable', image, dir]);
  // The empty filesystem's own use (its root and lost+found), not counted against the run.
  await rmdir(join(dir, 'lost+found')).catch(() => {});
  const empty = await statfs(dir);
  const baseline = (empty.blocks - empty.bfree) * empty.bsize;
  return {
    dir,
    async usage() {
      const s = await statfs(dir);
      return { bytes: Math.max(0, (s.blocks - s.bfree) * s.bsize - baseline), noInodes: s.ffree === 0 };
    },
    async release() {
      if ((await runProgram(tools.umount, [dir], { timeoutMs: COMMAND_TIMEOUT_MS })).ok) return;
      // Busy (a late process still in it): detached now, freed by the kernel when it lets go.
      await run(tools.umount, ['--lazy', dir]);
    },
  };
}

/** Runs one of the filesystem's programs; throws, saying why, when it fails. */
async function run(command: string, args: string[]): Promise<void> {
  const result = await runProgram(command, args, { timeoutMs: COMMAND_TIMEOUT_MS });
  if (!result.ok) throw new Error(`${command} ${args.join(' ')} failed: ${result.why}`);
}
