import { describe, expect, it } from 'vitest';
import { createGate } from '../src/util/gate.js';

const refused = () => new Error('refused');

/** A piece of work that runs until `finish()`. */
function held() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return { work: () => done, finish };
}

describe('createGate', () => {
  it('runs at most `concurrent` at once and hands places to waiters in arrival order', async () => {
    const gate = createGate({ concurrent: 2, waiting: 10, waitMs: 10_000 }, refused);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const works = Array.from({ length: 6 }, () => held());
    const all = works.map((w, i) =>
      gate.run(async () => {
        running++;
        most = Math.max(most, running);
        order.push(i);
        await w.work();
        running--;
        return i;
      }),
    );
    for (const w of works) {
      await new Promise((r) => setTimeout(r, 1));
      w.finish();
    }
    expect(await Promise.all(all)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(most).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('refuses at once past `waiting`, and a waiter with no place after `waitMs`; a failed work frees its place', async () => {
    const gate = createGate({ concurrent: 1, waiting: 1, waitMs: 30 }, refused);
    const first = held();
    const running = gate.run(first.work);
    const waiting = gate.run(async () => 'waited');
    await expect(gate.run(async () => 'never')).rejects.toThrow('refused');
    await expect(waiting).rejects.toThrow('refused');
    first.finish();
    await running;
    await expect(gate.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await gate.run(async () => 'free again')).toBe('free again');
  });
});
