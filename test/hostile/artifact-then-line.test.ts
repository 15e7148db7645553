import { createMemoryBlobStore } from '@agentrun/store-memory';
import { describe, expect, it } from 'vitest';
import { runScriptAgent } from './support/script-agent.js';
import { HOSTILE_STORES, storeFor } from './support/stores.js';

/**
 * An agent that, again and again, pauses, prints an artifact message, sleeps a moment and prints a
 * plain line, then its result: the line comes while the artifact is still being read from the
 * workspace and checked (a file of a few MiB, or a pull request).
 * The transcript tells every artifact before the line printed after it, on every store
 * (docs/executors.md, "The JSON-lines protocol": the events' ids follow the order printed).
 */

const ROUNDS = 6;
const RUNS = 3;
const FILE_BYTES = 4 * 1024 * 1024;
/** Round `i`'s artifact: even, a pull request core keeps; odd, a file of the workspace, kept too. */
const artifact = (i: number) =>
  i % 2 === 0
    ? { agentrun: 'artifact', type: 'PULL_REQUEST', url: `https://example.test/pr/${i}`, branch: `b${i}` }
    : { agentrun: 'artifact', type: 'FILE', path: 'report.bin', description: `file ${i}` };
const AGENT = `
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
require('node:fs').writeFileSync('report.bin', Buffer.alloc(${FILE_BYTES}, 7));
(async () => {
  for (let i = 0; i < ${ROUNDS}; i++) {
    await sleep(60);
    console.log(JSON.stringify((${artifact.toString()})(i)));
    await sleep(2);
    console.log('after artifact ' + i);
  }
  console.log(JSON.stringify({ agentrun: 'result', status: 'succeeded', message: 'done' }));
})();
`;

/** The events round `i` leaves, in order. */
const expected = (i: number) => [
  i % 2 === 0
    ? {
        type: 'artifact',
        data: {
          artifact_type: 'PULL_REQUEST',
          created_at: expect.any(String),
          data: { url: `https://example.test/pr/${i}`, branch: `b${i}` },
        },
      }
    : {
        type: 'artifact',
        data: expect.objectContaining({
          artifact_type: 'FILE',
          data: expect.objectContaining({ filename: 'report.bin', description: `file ${i}` }),
        }),
      },
  { type: 'output', data: { text: `after artifact ${i}` } },
];

describe.each(HOSTILE_STORES)('an agent printing a line just after each artifact message, on %s', (kind) => {
  const stores = storeFor(kind, 'artifact_then_line');

  it(`stores each artifact's event before the line printed after it, in ${RUNS} runs of ${ROUNDS} rounds`, async () => {
    for (let run = 0; run < RUNS; run++) {
      const { run: item, events, errors } = await runScriptAgent(await stores.fresh(), AGENT, { blobs: createMemoryBlobStore() });
      expect(item.state).toBe('SUCCEEDED');
      expect(events).toEqual(Array.from({ length: ROUNDS }, (_, i) => expected(i)).flat());
      expect(errors).toEqual([]);
    }
  }, 60_000);
});
