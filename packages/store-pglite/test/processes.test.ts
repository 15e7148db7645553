import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgentRun } from '@agentrun/core';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirectoryInUseError, openEmbeddedStore } from '../src/index.js';
import { type Holder, startHolder } from './support/holder.js';
import { expectKept } from './support/kept-data.js';

// An embedded store held by another process (support/holder-process.ts): refused to this one while
// that process lives; after it is killed with SIGKILL, opened here with everything it wrote, and
// the run it was executing recovered as on a PostgreSQL server (docs/state-machine.md, "Leases
// and retries"). One child process.

/** The holder makes a new cluster (initdb) before it is ready: seconds, many on a busy machine. */
const STARTS_MS = 120_000;

const dataDir = mkdtempSync(join(tmpdir(), 'agentrun-embedded-processes-'));
let holder: Holder | undefined;
afterAll(async () => {
  await holder?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('an embedded store held by another process', () => {
  it('is refused while it lives; once it is killed, opens with what it wrote and recovers its running run', {
    timeout: STARTS_MS * 2,
  }, async () => {
    holder = await startHolder(dataDir, STARTS_MS);
    const { kept } = holder;

    const refused = await openEmbeddedStore({ dataDir }).catch((error) => error);
    expect(refused).toBeInstanceOf(DataDirectoryInUseError);
    expect(refused.holder?.pid).toBe(holder.pid);
    expect(refused.message).toContain(`${dataDir} is in use by process ${holder.pid} (started `);

    expect(await holder.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    // Its socket stays behind, listened to by nobody: the next open takes the directory.
    expect(readdirSync(join(dataDir, 'lock'))).toHaveLength(1);

    const store = await openEmbeddedStore({ dataDir });
    const agentrun = createAgentRun({ store, clock: { now: () => Date.now() + 60_000 } });
    try {
      await expectKept(store, kept);
      expect(await store.runs.get(kept.runId)).toMatchObject({ state: 'INPROGRESS', attempts: 1, lease: { workerId: 'holder' } });

      // The lease of the dead worker lapses (30 s, here a minute ahead): any worker's sweep re-queues the run, and it runs again.
      const worker = agentrun.worker({
        schedules: false,
        executor: { execute: async () => ({ status: 'succeeded', message: 'done again' }) },
      });
      expect(await worker.recoverExpiredLeases()).toBe(1);
      expect(await store.runs.get(kept.runId)).toMatchObject({ state: 'QUEUED', lease: null });
      expect(await worker.poll()).toBe(1);
      await worker.idle();
      expect(await store.runs.get(kept.runId)).toMatchObject({ state: 'SUCCEEDED', attempts: 2 });
    } finally {
      await agentrun.close();
    }
  });
});
