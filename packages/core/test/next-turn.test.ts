import { afterEach, describe, expect, it, vi } from 'vitest';
import { nextTurn } from '../src/util/next-turn.js';

describe('nextTurn', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('lets callbacks already queued run first', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('queued'));
    await nextTurn();
    order.push('after the turn');
    expect(order).toEqual(['queued', 'after the turn']);
  });

  it('does not wait on a timer where the runtime has setImmediate (a timer waits at least 1 ms)', async () => {
    // Timers frozen: a turn taken through setTimeout would never end; the race tells which it was.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let turned = false;
    void nextTurn().then(() => {
      turned = true;
    });
    for (let i = 0; i < 5 && !turned; i++) await new Promise<void>((resolve) => setImmediate(resolve));
    expect(turned).toBe(true);
  });
});
