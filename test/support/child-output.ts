import type { ChildProcess } from 'node:child_process';

/** A child's stdout and stderr, kept together: wait for a line matching a pattern, read all of it. */
export function watchOutput(child: ChildProcess) {
  let out = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    out += chunk.toString();
    for (const check of [...waiters]) check();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  return {
    /** The groups of the first match of `pattern` in the output so far or to come; fails with the output after 20 s or an exit. */
    next(pattern: RegExp): Promise<string[]> {
      return new Promise((resolve, reject) => {
        const done = () => {
          waiters.delete(check);
          clearTimeout(timer);
          child.off('exit', onExit);
        };
        const check = () => {
          const match = pattern.exec(out);
          if (match) {
            done();
            resolve(match.slice(1));
          }
        };
        const onExit = (code: number | null) => {
          done();
          reject(new Error(`exited with ${code} before printing ${pattern}:\n${out}`));
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no output matching ${pattern} in 20 s:\n${out}`));
        }, 20_000);
        waiters.add(check);
        child.once('exit', onExit);
        check();
      });
    },
    /** Everything printed so far. */
    text: () => out,
  };
}
