import { runProgram } from './run-program.js';

/**
 * The measured disk limit, where a filesystem per run cannot be had (docs/executors.md, "Disk
 * limits"): the run's directory measured by `du` (GNU coreutils or BusyBox) in a child process,
 * never on the server's event loop. `du` walks with file descriptors, so no path is too deep for
 * it, and it counts allocated blocks. Files deleted while still open are found through the
 * processes' /proc/<pid>/fd (those the server may read) and counted too. What it cannot read is a
 * failure, never a zero: an agent that makes a directory unreadable has made its size unknowable.
 */

/** One measurement: the bytes, or why they could not be known. */
export type Measurement = { bytes: number } | { unreadable: string };

/**
 * `$1` the directory. `du -s -k -x` prints its total in KiB and exits non-zero when something
 * could not be read; the `find` lists the descriptors that point at a deleted file that was under
 * it, and `stat -L` gives their allocated blocks in 512-byte units.
 */
const SCRIPT = [
  'du -s -k -x -- "$1"',
  'find /proc/[0-9]*/fd -lname "$1/* (deleted)" -print0 2>/dev/null | xargs -0 -r stat -L -c "deleted %b %B" 2>/dev/null',
  'exit 0',
].join('\n');

/** Lines of `du`'s complaints that say only that a file went away during the walk: a busy agent, not a hidden size. */
const VANISHED = /No such file or directory/;

/** Measures `dir` once, in a child process; resolves with the bytes, or why they are not known. */
export async function measureDirectory(dir: string): Promise<Measurement> {
  // nice: the walk takes what the machine has spare, not what the server and the agents need.
  const result = await runProgram('nice', ['-n', '10', '/bin/sh', '-c', SCRIPT, 'agentrun-du', dir]);
  return parse(result.stdout, result.stderr);
}

/** The script's output as a measurement (exported for its tests). */
export function parse(stdout: string, stderr: string): Measurement {
  const complaints = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !VANISHED.test(line));
  if (complaints.length > 0) return { unreadable: complaints.slice(0, 3).join('; ').slice(0, 500) };
  let bytes: number | undefined;
  for (const line of stdout.split('\n')) {
    const total = /^(\d+)\t/.exec(line);
    if (total) bytes = Number(total[1]) * 1024;
    const deleted = /^deleted (\d+) (\d+)$/.exec(line);
    if (deleted && bytes !== undefined) bytes += Number(deleted[1]) * Number(deleted[2]);
  }
  return bytes === undefined ? { unreadable: `du printed no total${stderr ? `: ${stderr.trim().slice(0, 300)}` : ''}` } : { bytes };
}
