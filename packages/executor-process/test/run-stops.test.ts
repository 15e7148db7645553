import type { ExecutionContext } from '@agentrun/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Measurement } from '../src/disk-meter.js';
import { resolveOptions } from '../src/options.js';
import { runStops, type Stop } from '../src/run-stops.js';
import type { Workspace } from '../src/workspace.js';

/** A workspace whose run directory answers `measure` as told, counting the walks under way. */
function fakeWorkspace(limit: 'filesystem' | 'measured', measure: () => Promise<Measurement>) {
  const seen = { calls: 0, running: 0, most: 0, busyMs: 0 };
  const area = {
    limit,
    async measure() {
      seen.calls++;
      seen.running++;
      seen.most = Math.max(seen.most, seen.running);
      const started = performance.now();
      try {
        return await measure();
      } finally {
        seen.running--;
        seen.busyMs += performance.now() - started;
      }
    },
  };
  return { workspace: { area } as unknown as Workspace, seen };
}

const context = () => ({ signal: new AbortController().signal }) as unknown as ExecutionContext;
const config = (maxWorkspaceBytes: number) => resolveOptions({ command: 'x', maxWorkspaceBytes }, '/tmp/none');

describe('the disk cap checks', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('measured: one walk at a time, each after four times the last one took, so slow walks take at most a fifth of the time', async () => {
    // Every walk takes 2 s (a huge directory): the next starts 8 s after it ends, never while it runs.
    const { workspace, seen } = fakeWorkspace('measured', () => new Promise((resolve) => setTimeout(() => resolve({ bytes: 0 }), 2000)));
    const stops = runStops(config(1000), context(), workspace);
    await vi.advanceTimersByTimeAsync(60_000);
    stops.dispose();
    expect(seen.most).toBe(1);
    expect(seen.calls).toBeGreaterThanOrEqual(5);
    expect(seen.calls).toBeLessThanOrEqual(7);
    expect(seen.busyMs / 60_000).toBeLessThanOrEqual(0.25);
  });

  it('filesystem: a statfs every 250 ms; a size past the cap stops the run with disk_limit', async () => {
    let bytes = 10;
    const { workspace, seen } = fakeWorkspace('filesystem', async () => ({ bytes }));
    const stops = runStops(config(1000), context(), workspace);
    const heard: Stop[] = [];
    stops.on((stop) => heard.push(stop));
    await vi.advanceTimersByTimeAsync(1000);
    expect(seen.calls).toBe(4);
    expect(heard).toEqual([]);
    bytes = 1001;
    await vi.advanceTimersByTimeAsync(250);
    expect(heard).toEqual([{ reason: 'disk_limit', message: expect.stringMatching(/grew beyond 1000 bytes \(1001;/) }]);
    stops.dispose();
  });

  it('a size that cannot be known stops the run, as one past the cap does; so does a last check after the agent exits', async () => {
    const unreadable = fakeWorkspace('measured', async () => ({ unreadable: "du: cannot read directory 'x': Permission denied" }));
    const stops = runStops(config(1000), context(), unreadable.workspace);
    await stops.checkDisk();
    expect(stops.stop).toEqual({ reason: 'disk_limit', message: expect.stringMatching(/could not be measured .*Permission denied/) });
    stops.dispose();
    // Between two periodic checks, a burst: the check at the agent's exit sees it.
    const burst = fakeWorkspace('measured', async () => ({ bytes: 5000 }));
    const after = runStops(config(1000), context(), burst.workspace);
    expect(after.stop).toBeUndefined();
    await after.checkDisk();
    expect(after.stop?.reason).toBe('disk_limit');
    after.dispose();
  });
});
