import type { FollowupRecord } from '../run/record.js';

/**
 * The follow-ups of one execution on their way to its executor (docs/executors.md, "Follow-ups").
 * A follow-up counts as delivered only when it was in the execution's input or handed to a
 * listener: one read while nobody listens waits here, and goes to the first listener, in order.
 * What the execution never received is what `undelivered` names once it ended, for the worker to
 * queue the run again with it.
 */
export interface FollowupInbox {
  /** The execution starts with these (`ExecutionInput.followups`): delivered as its input. */
  begin(input: readonly FollowupRecord[]): void;
  /** A read of the run's follow-ups (any read, oldest first): the ones not known yet wait for a listener. */
  offer(all: readonly FollowupRecord[]): void;
  /** `ExecutionContext.onFollowup`: what waits goes to the listener right after it registers. */
  listen(listener: (followup: FollowupRecord) => void): () => void;
  /** Whether a listener is registered now. */
  readonly listening: boolean;
  /** The execution returned: nothing more is handed to its listeners. */
  close(): void;
  /** Of a read made after `close`, the follow-ups the execution never received. */
  undelivered(all: readonly FollowupRecord[]): FollowupRecord[];
}

export function followupInbox(onError: (error: unknown) => void): FollowupInbox {
  const listeners = new Set<(followup: FollowupRecord) => void>();
  /** Every follow-up read so far, delivered or waiting. */
  const known = new Set<string>();
  const delivered = new Set<string>();
  let waiting: FollowupRecord[] = [];
  let begun = false;
  let closed = false;
  let flushing = false;

  const flush = () => {
    // Re-entered from a listener (one that sends a follow-up, say), the loop already running delivers it.
    if (flushing) return;
    flushing = true;
    try {
      while (begun && !closed && listeners.size > 0 && waiting.length > 0) {
        const followup = waiting.shift() as FollowupRecord;
        delivered.add(followup.id);
        for (const listener of [...listeners]) {
          try {
            listener(followup);
          } catch (error) {
            onError(error);
          }
        }
      }
    } finally {
      flushing = false;
    }
  };

  return {
    begin(input) {
      for (const f of input) {
        known.add(f.id);
        delivered.add(f.id);
      }
      // A read that came before the input's (a notification as the run started) holds nothing newer than it.
      waiting = waiting.filter((f) => !delivered.has(f.id));
      begun = true;
    },
    offer(all) {
      for (const f of all) {
        if (known.has(f.id)) continue;
        known.add(f.id);
        waiting.push(f);
      }
      flush();
    },
    listen(listener) {
      listeners.add(listener);
      // Not before onFollowup returns: the executor may still be setting up what the listener uses.
      queueMicrotask(flush);
      return () => void listeners.delete(listener);
    },
    get listening() {
      return listeners.size > 0;
    },
    close() {
      closed = true;
    },
    undelivered(all) {
      return all.filter((f) => !delivered.has(f.id));
    },
  };
}
