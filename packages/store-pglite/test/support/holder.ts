import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { KeptData } from './kept-data.js';

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const SCRIPT = fileURLToPath(new URL('./holder-process.ts', import.meta.url));

export interface Holder {
  readonly pid: number;
  /** What it wrote before its run started executing. */
  readonly kept: KeptData;
  /** Kill it with `signal`; resolves with how it ended. */
  kill(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * holder-process.ts in a child process on `dataDir`, resolved once its run is executing. Run as
 * `node --conditions=agentrun-source --import tsx` from the repo root (docs/development.md), so the
 * pid is the process holding the store; it ends itself when this process goes (its stdin closes).
 */
export function startHolder(dataDir: string, timeoutMs: number): Promise<Holder> {
  const child = spawn(process.execPath, ['--conditions=agentrun-source', '--import', 'tsx', SCRIPT], {
    cwd: REPO_ROOT,
    env: { ...process.env, AGENTRUN_TEST_DATA_DIR: dataDir },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const output: string[] = [];
  child.stderr?.on('data', (chunk) => output.push(String(chunk)));
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      child.kill('SIGKILL');
      reject(new Error(`the holder process ${why}:\n${output.join('')}`));
    };
    const timer = setTimeout(() => fail(`was not executing within ${timeoutMs} ms`), timeoutMs);
    void exited.then((how) => fail(`exited (${JSON.stringify(how)})`));
    createInterface({ input: child.stdout as NonNullable<ChildProcess['stdout']> }).on('line', (line) => {
      output.push(`${line}\n`);
      const executing = /^executing (.*)$/.exec(line);
      if (!executing) return;
      clearTimeout(timer);
      resolve({
        pid: child.pid as number,
        kept: JSON.parse(executing[1] as string) as KeptData,
        kill: (signal) => {
          child.kill(signal);
          return exited;
        },
      });
    });
  });
}
