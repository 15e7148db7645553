import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ParkedSession, sessionParking } from '../src/session-parking.js';
import type { Workspace } from '../src/workspace.js';

const session = (name: string): ParkedSession => ({
  workspace: { dir: name } as Workspace,
  sessionId: `s-${name}`,
  answered: new Set(),
  usageBase: { input_tokens: 0, output_tokens: 0 },
  history: [],
});

afterEach(() => {
  vi.useRealTimers();
});

describe('sessionParking: sessions kept for a follow-up (docs/harnesses.md, "Follow-ups")', () => {
  it('gives a session back once, and releases it when its idle time passes untaken', () => {
    vi.useFakeTimers();
    const released: string[] = [];
    const parking = sessionParking((w) => released.push(w.dir));
    parking.park('r1', session('a'), 1000);
    parking.park('r2', session('b'), 1000);
    expect(parking.take('r1')?.sessionId).toBe('s-a');
    expect(parking.take('r1')).toBeUndefined();
    vi.advanceTimersByTime(1001);
    // Taken: the taker owns it now, so only the other one is released.
    expect(released).toEqual(['b']);
    expect(parking.take('r2')).toBeUndefined();
  });

  it('keeps at most 32, releasing the longest-waiting first; parking a run again releases its older session', () => {
    const released: string[] = [];
    const parking = sessionParking((w) => released.push(w.dir));
    for (let i = 0; i < 34; i++) parking.park(`r${i}`, session(`w${i}`), 60_000);
    expect(released).toEqual(['w0', 'w1']);
    parking.park('r5', session('w5-again'), 60_000);
    expect(released).toEqual(['w0', 'w1', 'w5']);
    parking.releaseAll();
    expect(released).toHaveLength(35);
  });
});
