import { runProgram } from './run-program.js';

/**
 * Removes a directory tree whatever an agent made of it (docs/executors.md, "Disk limits"): paths
 * longer than PATH_MAX, which Node's `fs.rm` cannot reach (ENAMETOOLONG), and directories the
 * agent made unreadable or unwritable. GNU and BusyBox `rm -r` walk with file descriptors, so no
 * depth stops them; when `rm` fails, `chmod -R u+rwx` gives the server back what the agent took
 * away, and `rm` runs again. Rejects, saying why, when the tree is still there after that.
 */
export async function removeTree(dir: string): Promise<void> {
  if ((await runProgram('rm', ['-rf', '--', dir])).ok) return;
  await runProgram('chmod', ['-R', 'u+rwx', '--', dir]);
  const second = await runProgram('rm', ['-rf', '--', dir]);
  if (!second.ok) throw new Error(`the run's directory ${dir} could not be removed: ${second.why}`);
}
