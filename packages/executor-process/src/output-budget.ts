import { RUN_EVENTS_PER_RUN } from '@agentrun/core/store';

/**
 * How much of an agent's stdout a run keeps (docs/executors.md, "Output budget"): lines are kept
 * until their bytes would pass `maxBytes`, or until `MAX_LINES`, just short of what a store keeps
 * of a run. Then one marker, and nothing more: the rest of the output is still read, so the agent
 * never blocks on a full pipe, and dropped. A timeout or cancel with lines still waiting for the
 * store spends the budget the same way, so the run ends without waiting for them.
 */
export interface OutputBudget {
  /**
   * A line of `bytes` bytes (its newline counted): `keep` it, or `drop` it, or it is the first past
   * the budget: write the marker instead, the limit it met saying why.
   */
  take(bytes: number): 'keep' | 'drop' | Truncation;
  /**
   * Spend the rest: the run was stopped with lines waiting, `returned` the bytes of those among
   * them that were kept and are dropped after all.
   */
  spend(returned: number): void;
  /** The bytes of the lines kept. */
  readonly bytes: number;
}

/**
 * The most lines kept: a store keeps `RUN_EVENTS_PER_RUN` events of a run and drops the rest (its
 * own `truncated` event saying so), so lines past it would cost writes for nothing; the room left
 * keeps the marker, the run's own `state` events (its outcome) and its follow-ups in the transcript.
 */
const MAX_LINES = RUN_EVENTS_PER_RUN - 100;

/** Default `maxOutputBytes`: a run's transcript stays a size the memory store holds with ease. */
export const DEFAULT_MAX_OUTPUT_BYTES = 16 * 2 ** 20;

export function outputBudget(maxBytes: number, maxLines = MAX_LINES): OutputBudget {
  let bytes = 0;
  let lines = 0;
  let spent = false;
  return {
    take(size) {
      if (spent) return 'drop';
      if (bytes + size > maxBytes || lines >= maxLines) {
        spent = true;
        return lines >= maxLines ? { by: 'lines', maxLines } : { by: 'bytes', maxBytes };
      }
      bytes += size;
      lines += 1;
      return 'keep';
    },
    spend(returned) {
      bytes -= returned;
      spent = true;
    },
    get bytes() {
      return bytes;
    },
  };
}

/** Why output stopped being kept, for the marker's message. */
export type Truncation = { by: 'bytes'; maxBytes: number } | { by: 'lines'; maxLines: number } | { by: 'stop'; reason: string };

/**
 * The marker's message: the run's `status_message` at once, and a `status` event (the last of the
 * agent's the transcript holds), so both the run and its transcript show where output stopped.
 */
export function truncationMessage(keptBytes: number, why: Truncation): string {
  const after = `Output truncated after ${keptBytes} bytes`;
  if (why.by === 'bytes') return `${after}: the agent's output beyond maxOutputBytes (${why.maxBytes}) is read and not kept`;
  if (why.by === 'lines')
    return `${after}: the agent's lines beyond ${why.maxLines} (a store keeps ${RUN_EVENTS_PER_RUN} events of a run) are read and not kept`;
  return `${after}: the run was stopped (${why.reason}) with output still waiting for the store, which is not kept`;
}
