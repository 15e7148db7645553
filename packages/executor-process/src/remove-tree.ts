import { spawn } from 'node:child_process';

/**
 * Removes a directory tree whatever an agent made of it (docs/executors.md, "Disk limits"): paths
 * longer than PATH_MAX, which Node's `fs.rm` cannot reach (ENAMETOOLONG), and directories the
 * agent made unreadable or unwritable. GNU and BusyBox `rm -r` walk with file descriptors, so no
 * depth stops them; when `rm` fails, `chmod -R u+rwx` gives the server back what the agent took
 * away, and `rm` runs again. Rejects, saying why, when the tree is still there after that.
 */
export async function removeTree(dir: string): Promise<void> {
  const first = await run('rm', ['-rf', '--', dir]);
  if (first === undefined) return;
  await run('chmod', ['-R', 'u+rwx', '--', dir]);
  const second = await run('rm', ['-rf', '--', dir]);
  if (second !== undefined) throw new Error(`the run's directory ${dir} could not be removed: ${second}`);
}

/** Runs a program; resolves undefined when it succeeded, else what it said. */
function run(command: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-2048);
    });
    child.once('error', (error) => resolve(`${command} could not run: ${error.message}`));
    child.once('close', (code, signal) =>
      resolve(code === 0 ? undefined : stderr.trim() || `${command} failed (${signal ?? `exit ${code}`})`),
    );
  });
}
