import { TERMINAL_STATES } from '@agentrun/core/api';
import type { AgentRunClient } from './client.js';
import { APIUserAbortError, WaitTimeoutError } from './errors.js';
import type { ResponseOf } from './operations.js';
import { sleep } from './sleep.js';

/**
 * `client.runs.wait()`: poll a run until it is finished (docs/client.md, "Waiting for a run:
 * wait()").
 */

type Run = ResponseOf<'getRun'>;

export interface WaitOptions {
  /** Between two looks. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Give up after this long with `WaitTimeoutError`. Default: no limit. */
  timeoutMs?: number;
  /** Ends the wait with `APIUserAbortError`. */
  signal?: AbortSignal;
}

/** The run, once it is in a terminal state. */
export async function waitForRun(client: AgentRunClient, runId: string, options: WaitOptions = {}): Promise<Run> {
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const { timeoutMs } = options;
  if (!(Number.isFinite(pollIntervalMs) && pollIntervalMs >= 0)) throw new TypeError('runs.wait: pollIntervalMs must be a number ≥ 0');
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs >= 0)) {
    throw new TypeError('runs.wait: timeoutMs must be a number ≥ 0');
  }
  // The deadline aborts a look in flight too, so the wait never outlasts timeoutMs by a request's time.
  const deadline = new AbortController();
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => deadline.abort(), timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  let lastState: string | undefined;
  try {
    for (;;) {
      const run = await client.runs.get(runId, { signal });
      lastState = run.state;
      if (TERMINAL_STATES.has(run.state)) return run;
      await sleep(pollIntervalMs, signal);
    }
  } catch (error) {
    if (error instanceof APIUserAbortError && deadline.signal.aborted && !options.signal?.aborted) {
      throw new WaitTimeoutError(runId, timeoutMs ?? 0, lastState);
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
