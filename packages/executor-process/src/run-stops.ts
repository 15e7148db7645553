import type { ExecutionContext, ExecutionOutcome } from '@agentrun/core';
import type { ResolvedOptions } from './options.js';
import type { Workspace } from './workspace.js';

/** How often a run filesystem's use is read (one statfs: docs/executors.md, "Disk limits"). */
const FILESYSTEM_CHECK_MS = 250;
/** How often a measured run directory is walked at most; a walk that took t ms waits MEASURE_DUTY × t before the next. */
const MEASURE_CHECK_MS = 1000;
/** The walks (`du`, in a child process) take at most 1 / (1 + 4) of a core, however many files an agent makes. */
const MEASURE_DUTY = 4;

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
  /**
   * One more size check now, after any still running (with a cap): the agent has exited, and what
   * it wrote in its last moments counts as much as what it wrote before.
   */
  checkDisk(): Promise<void>;
  /** The execution is over: no more timers. */
  dispose(): void;
}

export function runStops(
  config: Pick<ResolvedOptions, 'timeoutMs' | 'maxWorkspaceBytes'>,
  context: ExecutionContext,
  workspace: Workspace,
): RunStops {
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
  const disk = diskChecks(workspace, config.maxWorkspaceBytes, fire);
  return {
    get stop() {
      return stop;
    },
    checkDisk: () => disk.now(),
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
      disk.dispose();
      context.signal.removeEventListener('abort', onAbort);
      listeners.clear();
    },
  };
}

/**
 * The cap's checks: one at a time, never overlapping, the next scheduled only once the last ended
 * (a slow walk delays the next rather than piling up). A size that cannot be known stops the run
 * as a size past the cap does.
 */
function diskChecks(workspace: Workspace, max: number | undefined, fire: (stop: Stop) => void) {
  let running: Promise<void> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let disposed = false;
  const measured = workspace.area.limit === 'measured';
  const check = async (limit: number) => {
    const result = await workspace.area.measure().catch((error: unknown) => ({ unreadable: String(error) }));
    if ('unreadable' in result) {
      fire({
        reason: 'disk_limit',
        message: `The run's files could not be measured against the cap of ${limit} bytes: ${result.unreadable}`,
      });
    } else if (result.bytes > limit) {
      fire({
        reason: 'disk_limit',
        message: `The run's files grew beyond ${limit} bytes (${result.bytes}; its workspace, /tmp and /dev/shm together)`,
      });
    }
  };
  const tick = (limit: number) => {
    const started = performance.now();
    running = check(limit).finally(() => {
      running = undefined;
      if (disposed) return;
      const spent = performance.now() - started;
      timer = setTimeout(() => tick(limit), measured ? Math.max(MEASURE_CHECK_MS, MEASURE_DUTY * spent) : FILESYSTEM_CHECK_MS);
    });
  };
  if (max !== undefined) timer = setTimeout(() => tick(max), measured ? MEASURE_CHECK_MS : FILESYSTEM_CHECK_MS);
  return {
    async now() {
      if (max === undefined) return;
      await running;
      await check(max);
    },
    dispose() {
      disposed = true;
      clearTimeout(timer);
    },
  };
}

/** The outcome a stop gives the run. */
export const stoppedOutcome = (stop: Stop) =>
  stop.reason === 'cancel'
    ? ({ status: 'failed', message: 'Cancelled' } as const)
    : ({ status: 'failed', message: stop.message, error_code: stop.reason } as const);

/**
 * The outcome of a command agent that exited on its own (docs/executors.md, "The JSON-lines
 * protocol", "Outcomes"): its `result` message, else exit 0 SUCCEEDED, else FAILED `agent_exit` with
 * the end of its stderr. Exit 126 or 127 ("not executable", "not found" from the shell or the
 * wrapper) throws: the command could not start, an ERROR rather than the agent failing.
 */
export function exitOutcome(code: number | null, tail: string, result: ExecutionOutcome | undefined): ExecutionOutcome {
  if (code === 126 || code === 127) throw new Error(`the agent command could not start (exit ${code})${tail ? `: ${tail}` : ''}`);
  if (result) return result;
  if (code === 0) return { status: 'succeeded', message: 'The agent finished' };
  return {
    status: 'failed',
    message: `The agent exited with ${code === null ? 'a signal' : `code ${code}`}${tail ? `: ${tail}` : ''}`,
    error_code: 'agent_exit',
  };
}
