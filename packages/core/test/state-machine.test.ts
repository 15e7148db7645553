import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEvents } from '../src/events.js';
import { RUN_STATES, type RunState, TERMINAL_STATES } from '../src/models/run-state.js';
import { RunService } from '../src/run/run-service.js';
import {
  CANCELLABLE_STATES,
  isTerminal,
  LEASED_STATES,
  nextUpdatedAt,
  type RunEventType,
  type TransitionContext,
  transition,
} from '../src/run/state-machine.js';
import { isoTime } from '../src/util/clock.js';
import { manualClock, T0 } from './helpers.js';

const EVENTS: readonly RunEventType[] = [
  'claim',
  'prepare',
  'start',
  'block',
  'resume',
  'succeed',
  'fail',
  'error',
  'lease_expired',
  'cancel',
  'followup',
  'wait',
];

const TERMINAL: readonly RunState[] = ['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'];
const LEASED: readonly RunState[] = ['CLAIMED', 'PENDING', 'INPROGRESS', 'BLOCKED'];
const ACTIVE: readonly RunState[] = ['QUEUED', ...LEASED];

/**
 * The lifecycle of docs/state-machine.md, written out independently of the implementation's table.
 * `null` means refused. `lease_expired` depends on the attempt count and is checked separately.
 */
const EXPECTED: Record<Exclude<RunEventType, 'lease_expired'>, Partial<Record<RunState, RunState>>> = {
  // QUEUED (created) → CLAIMED (a worker leased it)
  claim: { QUEUED: 'CLAIMED' },
  // PENDING: optional step between CLAIMED and INPROGRESS
  prepare: { CLAIMED: 'PENDING' },
  // → INPROGRESS (executor started)
  start: { CLAIMED: 'INPROGRESS', PENDING: 'INPROGRESS' },
  block: { INPROGRESS: 'BLOCKED' },
  resume: { BLOCKED: 'INPROGRESS' },
  succeed: { INPROGRESS: 'SUCCEEDED' },
  fail: { PENDING: 'FAILED', INPROGRESS: 'FAILED', BLOCKED: 'FAILED' },
  // ERROR = the platform failed while the run was with a worker
  error: { CLAIMED: 'ERROR', PENDING: 'ERROR', INPROGRESS: 'ERROR', BLOCKED: 'ERROR' },
  // Cancel is allowed from QUEUED, PENDING, CLAIMED, INPROGRESS, BLOCKED → CANCELLED
  cancel: { QUEUED: 'CANCELLED', PENDING: 'CANCELLED', CLAIMED: 'CANCELLED', INPROGRESS: 'CANCELLED', BLOCKED: 'CANCELLED' },
  // A follow-up keeps an active run's state, re-queues a finished one, and is refused on CANCELLED/ERROR
  followup: {
    QUEUED: 'QUEUED',
    CLAIMED: 'CLAIMED',
    PENDING: 'PENDING',
    INPROGRESS: 'INPROGRESS',
    BLOCKED: 'BLOCKED',
    SUCCEEDED: 'QUEUED',
    FAILED: 'QUEUED',
  },
  // A queued run waiting for a worker of its host stays queued; its status says so
  wait: { QUEUED: 'QUEUED' },
};

const CTX: TransitionContext = { attempts: 1, maxAttempts: 3 };
const reasonFor = (state: RunState) => (TERMINAL.includes(state) ? 'terminal' : 'invalid');

describe('state sets', () => {
  it('has nine states, four of them terminal', () => {
    expect([...RUN_STATES].sort()).toEqual(
      ['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS', 'SUCCEEDED', 'FAILED', 'BLOCKED', 'ERROR', 'CANCELLED'].sort(),
    );
    expect([...TERMINAL_STATES].sort()).toEqual([...TERMINAL].sort());
    expect([...LEASED_STATES].sort()).toEqual([...LEASED].sort());
    expect([...CANCELLABLE_STATES].sort()).toEqual([...ACTIVE].sort());
    for (const s of RUN_STATES) expect(isTerminal(s)).toBe(TERMINAL.includes(s));
  });
});

describe('transition table (every state × event)', () => {
  const cases = RUN_STATES.flatMap((state) => Object.keys(EXPECTED).map((event) => ({ state, event: event as keyof typeof EXPECTED })));
  it.each(cases)('$state + $event', ({ state, event }) => {
    const expected = EXPECTED[event][state];
    const result = transition(state, { type: event }, CTX);
    if (expected === undefined) expect(result).toEqual({ ok: false, reason: reasonFor(state) });
    else expect(result).toEqual({ ok: true, to: expected });
  });

  it.each(RUN_STATES.map((state) => ({ state })))('$state + lease_expired', ({ state }) => {
    for (const [attempts, maxAttempts] of [
      [0, 3],
      [1, 3],
      [2, 3],
      [3, 3],
      [4, 3],
      [1, 1],
      [0, 1],
    ] as const) {
      const result = transition(state, { type: 'lease_expired' }, { attempts, maxAttempts });
      if (LEASED.includes(state)) expect(result).toEqual({ ok: true, to: attempts < maxAttempts ? 'QUEUED' : 'ERROR' });
      else expect(result).toEqual({ ok: false, reason: reasonFor(state) });
    }
  });

  it('refuses cancel from every terminal state with reason terminal', () => {
    for (const s of TERMINAL) expect(transition(s, { type: 'cancel' }, CTX)).toEqual({ ok: false, reason: 'terminal' });
  });

  it('refuses follow-ups on CANCELLED and ERROR, re-queues SUCCEEDED and FAILED', () => {
    expect(transition('CANCELLED', { type: 'followup' }, CTX)).toEqual({ ok: false, reason: 'terminal' });
    expect(transition('ERROR', { type: 'followup' }, CTX)).toEqual({ ok: false, reason: 'terminal' });
    expect(transition('SUCCEEDED', { type: 'followup' }, CTX)).toEqual({ ok: true, to: 'QUEUED' });
    expect(transition('FAILED', { type: 'followup' }, CTX)).toEqual({ ok: true, to: 'QUEUED' });
  });
});

// ───────────────────────────────────────── properties

const eventArb = fc.constantFrom(...EVENTS);
const ctxArb = fc
  .integer({ min: 1, max: 5 })
  .chain((maxAttempts) => fc.record({ attempts: fc.integer({ min: 0, max: maxAttempts + 1 }), maxAttempts: fc.constant(maxAttempts) }));
const stepsArb = fc.array(fc.tuple(eventArb, ctxArb), { maxLength: 60 });

/** Every state reachable from QUEUED by the transition function, by breadth-first search. */
function reachableFromQueued(): Set<RunState> {
  const contexts: TransitionContext[] = [
    { attempts: 0, maxAttempts: 3 },
    { attempts: 3, maxAttempts: 3 },
  ];
  const seen = new Set<RunState>(['QUEUED']);
  const queue: RunState[] = ['QUEUED'];
  while (queue.length > 0) {
    const from = queue.shift() as RunState;
    for (const type of EVENTS) {
      for (const ctx of contexts) {
        const r = transition(from, { type }, ctx);
        if (r.ok && !seen.has(r.to)) {
          seen.add(r.to);
          queue.push(r.to);
        }
      }
    }
  }
  return seen;
}

describe('state machine properties', () => {
  const reachable = reachableFromQueued();

  it('reaches every state from QUEUED (BFS)', () => {
    expect([...reachable].sort()).toEqual([...RUN_STATES].sort());
  });

  it('(a) stays inside the set reachable from QUEUED for any event sequence', () => {
    fc.assert(
      fc.property(stepsArb, (steps) => {
        let state: RunState = 'QUEUED';
        for (const [type, ctx] of steps) {
          const r = transition(state, { type }, ctx);
          if (r.ok) state = r.to;
          expect(reachable.has(state)).toBe(true);
          expect(RUN_STATES).toContain(state);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('(b) a terminal state only ever changes by a follow-up re-queuing SUCCEEDED/FAILED', () => {
    fc.assert(
      fc.property(stepsArb, (steps) => {
        let state: RunState = 'QUEUED';
        for (const [type, ctx] of steps) {
          const r = transition(state, { type }, ctx);
          if (isTerminal(state)) {
            if (r.ok) {
              expect(type).toBe('followup');
              expect(['SUCCEEDED', 'FAILED']).toContain(state);
              expect(r.to).toBe('QUEUED');
            } else {
              expect(r.reason).toBe('terminal');
            }
          } else if (!r.ok) {
            expect(r.reason).toBe('invalid');
          }
          if (r.ok) state = r.to;
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('(c) nextUpdatedAt never goes backwards, whatever the clock does', () => {
    const readings = fc.array(fc.integer({ min: T0 - 10 * 86_400_000, max: T0 + 10 * 86_400_000 }), { maxLength: 50 });
    fc.assert(
      fc.property(fc.integer({ min: T0 - 86_400_000, max: T0 + 86_400_000 }), readings, (start, clock) => {
        let updatedAt = isoTime(start);
        let max = start;
        for (const now of clock) {
          const next = nextUpdatedAt(updatedAt, isoTime(now));
          expect(next >= updatedAt).toBe(true);
          expect(next >= isoTime(now)).toBe(true);
          max = Math.max(max, now);
          expect(next).toBe(isoTime(max));
          updatedAt = next;
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('(d) a refused event leaves the state unchanged', () => {
    fc.assert(
      fc.property(stepsArb, (steps) => {
        let state: RunState = 'QUEUED';
        for (const [type, ctx] of steps) {
          const before = state;
          const r = transition(state, { type }, ctx);
          if (r.ok) {
            state = r.to;
            continue;
          }
          expect(r).not.toHaveProperty('to');
          // Asking again gives the same answer: refusal depends only on (state, event).
          expect(transition(before, { type }, ctx)).toEqual(r);
          expect(state).toBe(before);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('(d) through RunService.applyEvent: refused events change nothing stored; applied ones follow the machine', async () => {
    const principal = testPrincipal();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(eventArb, fc.integer({ min: -5_000, max: 5_000 })), { maxLength: 25 }),
        fc.integer({ min: 1, max: 3 }),
        async (steps, maxAttempts) => {
          const store = createMemoryStore();
          const events = createEvents();
          const changes: { from: RunState; to: RunState }[] = [];
          events.on('run.state_changed', (e) => changes.push({ from: e.from, to: e.to }));
          const clock = manualClock();
          const service = new RunService({ store, events, clock, maxAttempts });
          const { body } = await service.create(principal, { prompt: 'p' });
          for (const [type, clockStep] of steps) {
            clock.advance(clockStep); // the clock may step back
            const before = await store.runs.get(body.run_id);
            if (!before) throw new Error('run vanished');
            const expected = transition(before.state, { type }, { attempts: before.attempts, maxAttempts });
            const changesBefore = changes.length;
            const result = await service.applyEvent(body.run_id, { type });
            const after = await store.runs.get(body.run_id);
            if (!after) throw new Error('run vanished');
            // started_at: set once, the first time the run goes INPROGRESS, never changed after.
            if (before.startedAt !== null) expect(after.startedAt).toBe(before.startedAt);
            else if (expected.ok && expected.to === 'INPROGRESS') expect(after.startedAt).toBe(isoTime(clock.now()));
            else expect(after.startedAt).toBeNull();
            if (!expected.ok) {
              expect(result.kind).toBe('refused');
              expect(after).toEqual(before);
              expect(changes.length).toBe(changesBefore);
            } else {
              expect(result.kind).toBe('applied');
              expect(after.state).toBe(expected.to);
              expect(after.updatedAt >= before.updatedAt).toBe(true);
              if (expected.to !== before.state) expect(changes.at(-1)).toEqual({ from: before.state, to: expected.to });
              else expect(changes.length).toBe(changesBefore);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
