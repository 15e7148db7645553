import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Executor, ProgressUpdate } from '@agentrun/core';

/** The example agent the package ships, run by the tests as a real child process. */
export const EXAMPLE_AGENT = fileURLToPath(new URL('../../examples/agent.mjs', import.meta.url));

/** The executor, with every progress update it reports also kept (or printed), for tests to watch. */
export function recording(executor: Executor, onReport: (update: ProgressUpdate) => void): Executor {
  return {
    execute(input, context) {
      return executor.execute(input, {
        signal: context.signal,
        report: (update) => {
          onReport(update);
          return context.report(update);
        },
        block: (message) => context.block(message),
        resume: () => context.resume(),
        onFollowup: (listener) => context.onFollowup(listener),
        ...(context.record
          ? { record: (entries: Parameters<NonNullable<typeof context.record>>[0]) => context.record?.(entries) ?? Promise.resolve() }
          : {}),
      });
    },
  };
}

/** Whether the process runs (a zombie, waiting for a reaper, does not). Linux's /proc. */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

export const until = async (check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

/** The pids the example agent prints: its own, and with "sleep N" its sleeping child's. */
export const pidIn = (messages: readonly string[], what: 'agent pid' | 'sleeping in pid') => {
  for (const m of messages) {
    const match = new RegExp(`^${what} (\\d+)$`).exec(m);
    if (match) return Number(match[1]);
  }
  return undefined;
};
