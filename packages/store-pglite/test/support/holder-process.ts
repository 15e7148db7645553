/**
 * A process holding an embedded store, for processes.test.ts: it opens the store in
 * AGENTRUN_TEST_DATA_DIR, writes what kept-data.ts writes, and starts a worker whose executor never
 * finishes on its own. Once the run it created is executing it prints `executing <what it wrote,
 * as JSON>`, and waits for the test to kill it, or for its stdin to close (the test process gone).
 */
import { createAgentRun } from '@agentrun/core';
import { openEmbeddedStore } from '../../src/index.js';
import { writeKeptData } from './kept-data.js';

process.stdin.on('end', () => process.exit(1));
process.stdin.resume();

const dataDir = process.env.AGENTRUN_TEST_DATA_DIR;
if (!dataDir) throw new Error('AGENTRUN_TEST_DATA_DIR is required');

const store = await openEmbeddedStore({ dataDir });
const kept = await writeKeptData(store);
const worker = createAgentRun({ store }).worker({
  workerId: 'holder',
  pollIntervalMs: 20,
  schedules: false,
  executor: {
    execute: (_input, context) => {
      console.log(`executing ${JSON.stringify(kept)}`);
      return new Promise((_resolve, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason)));
    },
  },
});
worker.start();
