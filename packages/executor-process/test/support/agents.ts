import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Executor, RecordOptions, TranscriptEntry } from '@agentrun/core';

/** The example agent the package ships, run by the tests as a real child process. */
export const EXAMPLE_AGENT = fileURLToPath(new URL('../../examples/agent.mjs', import.meta.url));

/**
 * The executor, with every message it shows also kept (or printed), for tests to watch: each
 * report, each output line and status line it records, and each status it sets with them.
 */
export function recording(executor: Executor, onMessage: (message: string) => void): Executor {
  return {
    execute(input, context) {
      const record = context.record?.bind(context);
      const reportUsage = context.reportUsage?.bind(context);
      return executor.execute(input, {
        signal: context.signal,
        report: (update) => {
          onMessage(update.message);
          return context.report(update);
        },
        block: (message) => context.block(message),
        resume: () => context.resume(),
        onFollowup: (listener) => context.onFollowup(listener),
        ...(record
          ? {
              record: (entries: readonly TranscriptEntry[], options?: RecordOptions) => {
                for (const entry of entries)
                  if (entry.type === 'output') onMessage(entry.data.text);
                  else if (entry.type === 'status') onMessage(entry.data.message);
                if (options?.status) onMessage(options.status.message);
                return record(entries, options);
              },
            }
          : {}),
        ...(reportUsage ? { reportUsage } : {}),
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
