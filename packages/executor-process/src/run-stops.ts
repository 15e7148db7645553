import type { ExecutionContext } from '@agentrun/core';
import type { ResolvedOptions } from './options.js';
import { directoryBytes, type Workspace } from './workspace.js';

/** How often the workspace's size is checked against `maxWorkspaceBytes`. */
const DISK_CHECK_MS = 1000;

/** Why the executor stops an execution, when it does. */
export type Stop = { reason: 'cancel' } | { reason: 'timeout' | 'disk_limit'; message: string };

/**
 * What stops one execution, whatever runs in it at the time (its environment's setup, then its
 * agent): a cancel (`context.signal`), the run's timeout (`timeoutMs`, from the execution's start,
 * setup included) and the workspace's size cap (docs/executors.md, "The process executor").
 */
export interface RunStops {
  /** The first stop, once one came. */
  readonly stop: Stop | undefined;
  /** Calls `listener` at the first stop (at once when it came already); returns the unsubscribe. */
  on(listener: (stop: Stop) => void): () => void;
  /** The execution is over: no more timers. */
  dispose(): void;
}

export function runStops(config: ResolvedOptions, context: ExecutionContext, workspace: Workspace): RunStops {
  let stop: Stop | undefined;
  const listeners = new Set<(stop: Stop) => void>();
  const fire = (why: Stop) => {
    if (stop) return;
    stop = why;
    for (const listener of [...listeners]) listener(why);
  };
  const onAbort = () => fire({ reason: 'cancel' });
  if (context.signal.aborted) onAbort();
  context.signal.addEventListener('abort', onAbort, { once: true });
  const timeout =
    config.timeoutMs === undefined
      ? undefined
      : setTimeout(() => fire({ reason: 'timeout', message: `The agent ran longer than ${config.timeoutMs} ms` }), config.timeoutMs);
  const checkDisk = async (max: number) => {
    const bytes = await directoryBytes(workspace.dir);
    if (bytes > max) fire({ reason: 'disk_limit', message: `The workspace grew beyond ${max} bytes (${bytes})` });
  };
  const diskCheck =
    config.maxWorkspaceBytes === undefined
      ? undefined
      : setInterval(() => void checkDisk(config.maxWorkspaceBytes as number), DISK_CHECK_MS);
  return {
    get stop() {
      return stop;
    },
    on(listener) {
      if (stop) {
        listener(stop);
        return () => {};
      }
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose() {
      clearTimeout(timeout);
      clearInterval(diskCheck);
      context.signal.removeEventListener('abort', onAbort);
      listeners.clear();
    },
  };
}

/** The outcome a stop gives the run. */
export const stoppedOutcome = (stop: Stop) =>
  stop.reason === 'cancel'
    ? ({ status: 'failed', message: 'Cancelled' } as const)
    : ({ status: 'failed', message: stop.message, error_code: stop.reason } as const);
