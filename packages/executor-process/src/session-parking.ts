import type { UsageTotals } from './harness-lines.js';
import type { Workspace } from './workspace.js';

/** The most sessions kept waiting at once: past it, the longest-waiting one goes first. */
const MAX_PARKED = 32;

/** A CLI session kept after its execution, for a follow-up to continue (docs/harnesses.md, "Follow-ups"). */
export interface ParkedSession {
  workspace: Workspace;
  /** The CLI's session id, to resume. */
  sessionId: string;
  /** The follow-ups its turns already answered. */
  answered: ReadonlySet<string>;
  /** The run's usage when the session began: what a CLI that counts its session's usage adds to (harness-run.ts). */
  usageBase: UsageTotals;
  /** The conversation so far in a few lines, for a CLI that replays it rather than resume (harness-run.ts). */
  history: readonly string[];
}

/**
 * Sessions waiting for follow-ups, by run: the run's directory (workspace, home, /tmp) stays while
 * one waits, and goes when its idle time passes, when it is taken again and ends, or when more
 * than MAX_PARKED wait. One per executor; in memory, so a follow-up reaches its session only on the
 * executor that ran it (another starts a new session with the conversation so far).
 */
export function sessionParking(release: (workspace: Workspace) => void) {
  const parked = new Map<string, { session: ParkedSession; timer: ReturnType<typeof setTimeout> }>();
  const drop = (runId: string) => {
    const entry = parked.get(runId);
    if (!entry) return;
    parked.delete(runId);
    clearTimeout(entry.timer);
    release(entry.session.workspace);
  };
  return {
    /** Keep `session` for `idleMs`. */
    park(runId: string, session: ParkedSession, idleMs: number): void {
      drop(runId);
      const timer = setTimeout(() => drop(runId), idleMs);
      timer.unref?.();
      parked.set(runId, { session, timer });
      // Oldest first: a Map iterates in insertion order.
      while (parked.size > MAX_PARKED) drop(parked.keys().next().value as string);
    },
    /** The run's session, no longer waiting, if it still was. */
    take(runId: string): ParkedSession | undefined {
      const entry = parked.get(runId);
      if (!entry) return undefined;
      parked.delete(runId);
      clearTimeout(entry.timer);
      return entry.session;
    },
    /** Every session released (the executor is closing). */
    releaseAll(): void {
      for (const runId of [...parked.keys()]) drop(runId);
    },
  };
}
