import { type RunState, TERMINAL_STATES } from '../models/run-state.js';
import { hasAttemptsLeft } from './attempts.js';

/**
 * The run lifecycle (docs/state-machine.md) as a pure function. Nothing else in agentrun decides a
 * run's next state: services compute it here and stores only apply it if the run is still in the
 * state it was read in, so an illegal transition cannot be written through any API.
 *
 *   QUEUED ─claim→ CLAIMED ─prepare→ PENDING ─start→ INPROGRESS ─succeed→ SUCCEEDED
 *                     └──────────start──────────────↗    │  ↑ ─fail→ FAILED
 *                                              block ↓  │ resume
 *                                                  BLOCKED
 *   any active state ─cancel→ CANCELLED        leased states ─error→ ERROR
 *   leased states ─lease_expired→ QUEUED (attempts left) or ERROR
 *   SUCCEEDED | FAILED ─followup→ QUEUED (same conversation continues)
 *   QUEUED ─wait→ QUEUED (its status tells what it waits for: a worker of its host)
 */

export type RunEvent =
  /** A worker leased the run. */
  | { type: 'claim' }
  /** The executor is preparing (optional step). */
  | { type: 'prepare' }
  /** The executor started work. */
  | { type: 'start' }
  /** The run waits on input it cannot proceed without. */
  | { type: 'block' }
  /** Input arrived; the run continues. */
  | { type: 'resume' }
  | { type: 'succeed' }
  /** The agent failed. */
  | { type: 'fail' }
  /** The platform failed (not the agent). */
  | { type: 'error' }
  /** The worker holding the lease stopped renewing it. */
  | { type: 'lease_expired' }
  | { type: 'cancel' }
  | { type: 'followup' }
  /**
   * A queued run's wait for a worker changed (docs/operations.md, "Worker hosts"): it stays
   * `QUEUED`, its status saying for what (worker/worker-hosts.ts `waitingStatus`).
   */
  | { type: 'wait' };

export type RunEventType = RunEvent['type'];

/** States in which a worker holds the run's lease. */
export const LEASED_STATES: ReadonlySet<RunState> = new Set(['CLAIMED', 'PENDING', 'INPROGRESS', 'BLOCKED']);
/** States a run can be cancelled from: every active one (contract §3; docs/state-machine.md, "Cancel"). */
export const CANCELLABLE_STATES: ReadonlySet<RunState> = new Set(['QUEUED', ...LEASED_STATES]);

export const isTerminal = (state: RunState): boolean => TERMINAL_STATES.has(state);

export interface TransitionContext {
  /** How many times the run has been claimed so far (this attempt included). */
  attempts: number;
  /** Claims allowed before an expired lease turns into `ERROR`. */
  maxAttempts: number;
}

export type TransitionResult =
  | { ok: true; to: RunState }
  /** `terminal`: the run has ended and the event cannot apply; `invalid`: not from this state. */
  | { ok: false; reason: RefusalReason };

export type RefusalReason = 'terminal' | 'invalid';

const TABLE: Record<Exclude<RunEventType, 'lease_expired' | 'followup'>, Partial<Record<RunState, RunState>>> = {
  claim: { QUEUED: 'CLAIMED' },
  prepare: { CLAIMED: 'PENDING' },
  start: { CLAIMED: 'INPROGRESS', PENDING: 'INPROGRESS' },
  block: { INPROGRESS: 'BLOCKED' },
  resume: { BLOCKED: 'INPROGRESS' },
  succeed: { INPROGRESS: 'SUCCEEDED' },
  fail: { PENDING: 'FAILED', INPROGRESS: 'FAILED', BLOCKED: 'FAILED' },
  error: { CLAIMED: 'ERROR', PENDING: 'ERROR', INPROGRESS: 'ERROR', BLOCKED: 'ERROR' },
  cancel: { QUEUED: 'CANCELLED', CLAIMED: 'CANCELLED', PENDING: 'CANCELLED', INPROGRESS: 'CANCELLED', BLOCKED: 'CANCELLED' },
  wait: { QUEUED: 'QUEUED' },
};

export function transition(from: RunState, event: RunEvent, ctx: TransitionContext): TransitionResult {
  const refuse = (): TransitionResult => ({ ok: false, reason: isTerminal(from) ? 'terminal' : 'invalid' });
  switch (event.type) {
    case 'followup':
      // Active runs keep their state (the message goes to the executor); a finished conversation
      // is re-queued; a cancelled or broken run cannot be continued.
      if (from === 'SUCCEEDED' || from === 'FAILED') return { ok: true, to: 'QUEUED' };
      return isTerminal(from) ? refuse() : { ok: true, to: from };
    case 'lease_expired':
      if (!LEASED_STATES.has(from)) return refuse();
      return { ok: true, to: hasAttemptsLeft(ctx.attempts, ctx.maxAttempts) ? 'QUEUED' : 'ERROR' };
    default: {
      const to = TABLE[event.type][from];
      return to === undefined ? refuse() : { ok: true, to };
    }
  }
}

/**
 * The states a run goes through when `events` apply in turn from `from`, as the machine decides
 * them (`transition`); a step the machine refuses is a programming error, thrown at load.
 */
function pathOf(from: RunState, events: readonly RunEventType[]): readonly RunState[] {
  const states = [from];
  for (const type of events) {
    const step = transition(states[states.length - 1] as RunState, { type } as RunEvent, { attempts: 0, maxAttempts: 1 });
    if (!step.ok) throw new Error(`state machine: ${type} does not apply after ${states.join(' → ')}`);
    states.push(step.to);
  }
  return states;
}

/**
 * What a claim does to a run, as the stores apply it (`RunStore.claimNext`, docs/state-machine.md,
 * "Claims"): the first state is the one a run is claimed from, the last the one it is left in, and
 * every step between is a `state` event of its transcript, written with the claim. `CLAIM` leases
 * the run; `CLAIM_AND_START` also starts it, for a worker whose executor starts at once: one write
 * instead of two, with both events (QUEUED → CLAIMED → INPROGRESS).
 */
export const CLAIM: readonly RunState[] = pathOf('QUEUED', ['claim']);
export const CLAIM_AND_START: readonly RunState[] = pathOf('QUEUED', ['claim', 'start']);

/**
 * `started_at` of a run entering `to` at `now`: set the first time it goes `INPROGRESS` (the agent
 * started working), kept after (a resume, a follow-up's new execution). One decider, applied by
 * run/apply-event.ts to every transition.
 */
export const startedAtAfter = (startedAt: string | null, to: RunState, nowIso: string): string | null =>
  startedAt ?? (to === 'INPROGRESS' ? nowIso : null);

/** `updated_at` of a run after a write at `now`: never earlier than it was (clocks can step back). */
export const nextUpdatedAt = (previousIso: string, nowIso: string): string => (nowIso > previousIso ? nowIso : previousIso);
