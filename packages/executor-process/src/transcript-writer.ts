import type { ExecutionContext, TranscriptEntry } from '@agentrun/core';

/**
 * The agent's output lines and artifacts into the run's transcript (`context.record`), in
 * batches: entries gathered for up to `intervalMs` (or `maxBatch` of them) go in one write, so a
 * chatty agent costs a write per batch, not per line, and a follower sees a line within about
 * `intervalMs` (docs/executors.md, "The process executor"). Writes go one at a time, in order.
 */
export interface TranscriptWriter {
  add(entry: TranscriptEntry): void;
  /** Write what is gathered and wait for every write under way. */
  close(): Promise<void>;
}

export function transcriptWriter(
  context: ExecutionContext,
  onError: (error: unknown) => void,
  { intervalMs = 50, maxBatch = 100 } = {},
): TranscriptWriter {
  let batch: TranscriptEntry[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let chain = Promise.resolve();
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (batch.length === 0 || !context.record) return;
    const entries = batch;
    batch = [];
    chain = chain.then(() => context.record?.(entries)).catch(onError);
  };
  return {
    add(entry) {
      if (!context.record) return;
      batch.push(entry);
      if (batch.length >= maxBatch) flush();
      else timer ??= setTimeout(flush, intervalMs);
    },
    async close() {
      flush();
      await chain;
    },
  };
}
