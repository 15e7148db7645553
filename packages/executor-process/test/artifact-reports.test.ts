import type { ExecutionContext, ReportedArtifact } from '@agentrun/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { artifactReports } from '../src/artifact-reports.js';
import type { AgentMessage } from '../src/protocol.js';

// The order of what artifact messages leave (artifact-reports.ts; docs/executors.md,
// "Artifacts"): each message's artifact or refusal is written before the next message's, and the
// note on the messages past 200 after every one before it, however long each write takes.

type ArtifactMessage = Extract<AgentMessage, { agentrun: 'artifact' }>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Message `i`: a pull request core keeps, one it refuses, or a file the executor cannot read (no workspace). */
const message = (i: number, kind: 'kept' | 'refused' | 'file'): ArtifactMessage =>
  kind === 'file'
    ? { agentrun: 'artifact', type: 'FILE', path: `f${i}` }
    : { agentrun: 'artifact', type: 'PULL_REQUEST', url: kind === 'kept' ? `https://x.test/${i}` : `ftp://x.test/${i}`, branch: 'b' };

/** What each message leaves, in the order the writes were stored; each write takes `delay(i)` ms. */
function harness(delay: (n: number) => number) {
  const stored: string[] = [];
  let writes = 0;
  const context = {
    async reportArtifact(artifact: ReportedArtifact) {
      const url = (artifact as { url: string }).url;
      await sleep(delay(writes++));
      if (url.startsWith('https:')) {
        stored.push(`artifact ${url.slice('https://x.test/'.length)}`);
        return { accepted: true as const, artifact_uid: url };
      }
      return { accepted: false as const, reason: `refused ${url.slice('ftp://x.test/'.length)}` };
    },
  } as unknown as ExecutionContext;
  const errors: unknown[] = [];
  const reports = artifactReports(context, {
    workspace: undefined,
    maxFileBytes: 100,
    onError: (error) => errors.push(error),
    note: async (note) => {
      await sleep(delay(writes++));
      stored.push(note);
    },
  });
  return { reports, stored, errors };
}

const left = (i: number, kind: 'kept' | 'refused' | 'file') =>
  kind === 'kept'
    ? `artifact ${i}`
    : kind === 'refused'
      ? `Artifact refused: refused ${i}`
      : 'Artifact refused: no workspace to read it from';

describe('artifact messages’ events and refusals (artifact-reports.ts)', () => {
  it('are stored in the order the messages came, whatever each write costs', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('kept' as const, 'refused' as const, 'file' as const), { maxLength: 12 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 12 }),
        async (kinds, delays) => {
          const { reports, stored, errors } = harness((n) => delays[n % delays.length] ?? 0);
          kinds.forEach((kind, i) => {
            expect(reports.take(message(i, kind))).toBe(true);
          });
          await reports.idle();
          expect(stored).toEqual(kinds.map((kind, i) => left(i, kind)));
          expect(errors).toEqual([]);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('note the messages past 200 once, after what every message before them left', async () => {
    const { reports, stored } = harness((n) => (n < 3 ? 5 : 0));
    const kinds = Array.from({ length: 205 }, (_, i) => (i % 2 === 0 ? ('refused' as const) : ('kept' as const)));
    kinds.forEach((kind, i) => {
      reports.take(message(i, kind));
    });
    await reports.idle();
    expect(stored).toEqual([...kinds.slice(0, 200).map((kind, i) => left(i, kind)), 'Artifact refused: more than 200 artifact messages']);
  });
});
