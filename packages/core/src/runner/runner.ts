import type { LoopHealth } from './loop.js';
import type { RunnerPart } from './part.js';

/** One part in the health report. */
export interface PartHealth extends LoopHealth {
  name: string;
}

export interface RunnerHealth {
  /** Started and not stopped. */
  running: boolean;
  parts: PartHealth[];
}

export interface RunnerStopOptions {
  /** How long work under way (a run's execution) may take to finish before it is let go. Default 0. */
  graceMs?: number;
}

/**
 * A process's background work, one start and one stop (docs/architecture.md, "The runner"): the
 * parts it was made with, each switchable per process (`agentrun.runner()`).
 */
export interface Runner {
  /** Names this runner in the health report (its worker's id when it runs runs). */
  readonly id: string;
  /** Its parts' names, in order. */
  readonly parts: readonly string[];
  /** Start every part; again after a stop too. */
  start(): void;
  /**
   * Stop every part at once: from the first moment none takes anything new; work under way gets
   * `graceMs` to finish, the rest is let go; then `afterStop` (the keys' usage is written).
   */
  stop(options?: RunnerStopOptions): Promise<void>;
  health(): RunnerHealth;
}

export interface RunnerOptions {
  id: string;
  parts: readonly RunnerPart[];
  /** Once every part has stopped (or failed to): the process is shutting down. */
  afterStop?: () => Promise<void>;
}

export function createRunner(options: RunnerOptions): Runner {
  const { parts } = options;
  const names = parts.map((p) => p.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw new TypeError(`createRunner: two parts are named ${twice}`);
  let running = false;
  return {
    id: options.id,
    parts: names,
    start() {
      if (running) return;
      running = true;
      for (const part of parts) part.start();
    },
    async stop({ graceMs = 0 } = {}) {
      running = false;
      // All at once, not one after the other: each claims nothing new from this moment (the
      // evaluation stops beside the runs, not before them), and the grace is shared.
      const stopped = await Promise.allSettled(parts.map((part) => part.stop({ graceMs })));
      await options.afterStop?.();
      const failed = stopped.find((s) => s.status === 'rejected');
      if (failed) throw failed.reason;
    },
    health: () => ({ running, parts: parts.map((part) => ({ name: part.name, ...part.health() })) }),
  };
}
