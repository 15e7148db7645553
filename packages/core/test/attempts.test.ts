import { makeRun } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAgentRun, demoExecutor } from '../src/index.js';
import { hasAttemptsLeft } from '../src/run/attempts.js';
import { LEASED_STATES, transition } from '../src/run/state-machine.js';
import { isoTime } from '../src/util/clock.js';
import { T0 } from './helpers.js';

const leasedArb = fc.constantFrom(...LEASED_STATES);
const budgetArb = fc.integer({ min: 1, max: 10 });
/** Claims so far, including past the budget (a budget lowered under runs already claimed). */
const attemptsArb = (maxAttempts: number) => fc.integer({ min: 0, max: maxAttempts + 3 });

describe('the attempts rule', () => {
  it('allows exactly maxAttempts claims: attempts 0 … maxAttempts − 1 may be claimed again', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20 }), (maxAttempts) => {
        const allowed = Array.from({ length: maxAttempts + 5 }, (_, attempts) => attempts).filter((a) => hasAttemptsLeft(a, maxAttempts));
        expect(allowed).toEqual(Array.from({ length: maxAttempts }, (_, a) => a));
      }),
    );
  });

  it('is monotone: fewer claims or a larger budget never takes a retry away', () => {
    fc.assert(
      fc.property(budgetArb, fc.nat(3), fc.nat(3), (maxAttempts, less, more) => {
        for (let attempts = 0; attempts <= maxAttempts + 3; attempts++) {
          if (!hasAttemptsLeft(attempts, maxAttempts)) continue;
          expect(hasAttemptsLeft(Math.max(0, attempts - less), maxAttempts)).toBe(true);
          expect(hasAttemptsLeft(attempts, maxAttempts + more)).toBe(true);
        }
      }),
    );
  });

  it('decides where the state machine sends an expired lease', () => {
    fc.assert(
      fc.property(
        leasedArb,
        budgetArb.chain((maxAttempts) => fc.tuple(attemptsArb(maxAttempts), fc.constant(maxAttempts))),
        (state, [attempts, maxAttempts]) => {
          const to = hasAttemptsLeft(attempts, maxAttempts) ? 'QUEUED' : 'ERROR';
          expect(transition(state, { type: 'lease_expired' }, { attempts, maxAttempts })).toEqual({ ok: true, to });
        },
      ),
    );
  });

  it("and the worker's recovery words its status message by the same answer", async () => {
    await fc.assert(
      fc.asyncProperty(
        leasedArb,
        budgetArb.chain((maxAttempts) => fc.tuple(attemptsArb(maxAttempts), fc.constant(maxAttempts))),
        async (state, [attempts, maxAttempts]) => {
          const store = createMemoryStore();
          const app = createAgentRun({ store, clock: { now: () => T0 }, maxAttempts });
          const run = makeRun({ state, attempts, lease: { workerId: 'gone', expiresAt: isoTime(T0 - 1) } });
          await store.runs.create({ run, attachments: [] });
          const worker = app.worker({ executor: demoExecutor({ durationMs: 1 }) });

          expect(await worker.recoverExpiredLeases()).toBe(1);
          const after = await store.runs.get(run.id);
          expect(after?.lease).toBeNull();
          if (hasAttemptsLeft(attempts, maxAttempts)) {
            expect(after).toMatchObject({ state: 'QUEUED', statusMessage: { retryable: true } });
            expect(after?.statusMessage?.error_code).toBeUndefined();
          } else {
            expect(after).toMatchObject({ state: 'ERROR', statusMessage: { error_code: 'lease_expired', retryable: false } });
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
