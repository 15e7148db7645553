import { constants } from 'node:fs';
import { open, readlink, realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

// A file an agent names as an artifact (docs/executors.md, "Artifacts"): read by the executor,
// which may be able to read what the agent cannot, so only a regular file inside the workspace,
// reached without leaving it, and bounded. The agent is untrusted: it may race a symlink in.

/** The bytes, or why the file is refused. */
export type WorkspaceRead = { bytes: Uint8Array } | { refused: string };

const inside = (root: string, path: string) => {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
};

/**
 * Read `path` (relative to `workspace`) when it is a regular file of at most `maxBytes`, with one
 * link, inside the workspace after every symlink is resolved. The check is made again on the
 * opened file itself (`/proc/self/fd`), so a symlink swapped in between finds nothing to read.
 */
export async function readWorkspaceFile(workspace: string, path: string, maxBytes: number): Promise<WorkspaceRead> {
  if (path.includes('\0') || isAbsolute(path)) return { refused: `${path}: not a path inside the workspace` };
  const root = await realpath(workspace);
  const target = resolve(root, path);
  if (!inside(root, target)) return { refused: `${path}: outside the workspace` };
  let real: string;
  try {
    real = await realpath(target);
  } catch {
    return { refused: `${path}: no such file` };
  }
  if (!inside(root, real)) return { refused: `${path}: leads outside the workspace` };
  let file: Awaited<ReturnType<typeof open>>;
  try {
    // O_NONBLOCK: a FIFO put there does not hang the executor (it is refused below as not a file).
    file = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return { refused: `${path}: cannot be opened` };
  }
  try {
    const opened = await readlink(`/proc/self/fd/${file.fd}`).catch(() => real);
    if (!inside(root, opened)) return { refused: `${path}: leads outside the workspace` };
    const stats = await file.stat();
    if (!stats.isFile()) return { refused: `${path}: not a regular file` };
    if (stats.nlink > 1) return { refused: `${path}: has other hard links` };
    if (stats.size > maxBytes) return { refused: `${path} is ${stats.size} bytes; at most ${maxBytes}` };
    // Read at most one byte past its size: a file growing meanwhile is refused, not read whole.
    const buffer = new Uint8Array(Math.min(stats.size, maxBytes) + 1);
    let length = 0;
    while (length < buffer.byteLength) {
      const { bytesRead } = await file.read(buffer, length, buffer.byteLength - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > stats.size) return { refused: `${path} changed while it was read` };
    return { bytes: buffer.subarray(0, length) };
  } finally {
    await file.close();
  }
}
