import type { BackoffOptions } from './backoff.js';
import { createLoop, type Loop, type LoopHealth, ReportedFailure } from './loop.js';

/**
 * One kind of a process's background work, owned by its runner (runner.ts; docs/architecture.md,
 * "The runner"): the runs (the worker), the evaluation of deliveries, the schedules, maintenance,
 * callbacks, sources, or one of the host's own (a presence heartbeat). Each runs on the runner's
 * loop (loop.ts), so each wakes, backs off and reports alike.
 */
export interface RunnerPart {
  /** Its name in the health report: `runs`, `evaluation`, … */
  readonly name: string;
  start(): void;
  /**
   * Take nothing new from the moment it is called; resolve once the work under way is done, waiting
   * up to `graceMs` for work that may finish on its own before letting it go (a run goes back to
   * the queue).
   */
  stop(options: { graceMs: number }): Promise<void>;
  health(): LoopHealth;
}

export interface LoopPartOptions {
  name: string;
  /** One pass; a rejection is a failure (a {@link ReportedFailure} is counted, not reported again). */
  pass(): Promise<unknown>;
  /** The time between passes that work. */
  everyMs: number;
  /** Default: twice `everyMs`, doubled per failure up to 10 s (or `everyMs` if longer). */
  backoff?: BackoffOptions;
  onError(error: unknown): void;
  /** Once stopped, the pass under way ended: let go of what it holds (a presence heartbeat says it is gone). */
  stopped?: () => Promise<unknown>;
}

/** A part that is only a pass on a timer (maintenance, callbacks, sources, a presence heartbeat). */
export function loopPart(options: LoopPartOptions): RunnerPart & { readonly loop: Loop<unknown> } {
  const loop = createLoop<unknown>({
    pass: () => options.pass(),
    nextMs: () => options.everyMs,
    backoff: options.backoff ?? { baseMs: options.everyMs * 2, maxMs: Math.max(options.everyMs, 10_000) },
    onError: options.onError,
    failed: undefined,
  });
  return {
    name: options.name,
    loop,
    start: loop.start,
    async stop() {
      await loop.stop();
      await options.stopped?.();
    },
    health: loop.health,
  };
}

export { ReportedFailure };
