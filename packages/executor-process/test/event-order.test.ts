import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ArtifactReportResult, ExecutionContext, ReportedArtifact, TranscriptEntry } from '@agentrun/core';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { agentOutput } from '../src/agent-output.js';

// Every event of a run in the order the agent printed it, across plain lines, status messages and
// artifact messages, however long the store and core take (docs/executors.md, "The JSON-lines
// protocol"): the lines are batched (transcript-writer.ts), and an artifact being read from the
// workspace and checked holds back the lines printed after it.

type Kind = 'plain' | 'status' | 'kept' | 'refused' | 'file' | 'missing' | 'note';

const workspace = mkdtempSync(join(tmpdir(), 'agentrun-event-order-'));
writeFileSync(join(workspace, 'report.txt'), 'the report');
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Item `i` as printed. */
function printed(i: number, kind: Kind): string {
  const artifact = (fields: Record<string, unknown>) => JSON.stringify({ agentrun: 'artifact', ...fields });
  switch (kind) {
    case 'plain':
      return `line ${i}`;
    case 'status':
      return JSON.stringify({ agentrun: 'status', message: `status ${i}` });
    case 'kept':
      return artifact({ type: 'PULL_REQUEST', url: `https://x.test/${i}`, branch: 'b' });
    case 'refused':
      return artifact({ type: 'PULL_REQUEST', url: `ftp://x.test/${i}`, branch: 'b' });
    case 'file':
      return artifact({ type: 'FILE', path: 'report.txt', description: `file ${i}` });
    case 'missing':
      return artifact({ type: 'FILE', path: `missing-${i}.txt` });
    case 'note':
      return artifact({ type: 'note', name: `note ${i}` });
  }
}

/** The event item `i` leaves, as `stored` tells it. */
function left(i: number, kind: Kind): string {
  switch (kind) {
    case 'plain':
      return `line ${i}`;
    case 'status':
      return `status: status ${i}`;
    case 'kept':
      return `artifact: https://x.test/${i}`;
    case 'refused':
      return `status: Artifact refused: refused ${i}`;
    case 'file':
      return `artifact: file ${i}`;
    case 'missing':
      return `status: Artifact refused: missing-${i}.txt: no such file`;
    case 'note':
      return `note: note ${i}`;
  }
}

/**
 * A context whose writes are stored one at a time in the order they were called, as core's are
 * (execution-context.ts), each taking `delay(n)` ms for the `n`th write.
 */
function fakeContext(delay: (n: number) => number) {
  const stored: string[] = [];
  let writes = 0;
  let chain: Promise<unknown> = Promise.resolve();
  const inOrder = <T>(work: () => Promise<T>): Promise<T> => {
    const done = chain.then(work);
    chain = done.catch(() => {});
    return done;
  };
  const describeEntry = (entry: TranscriptEntry) =>
    entry.type === 'output'
      ? entry.data.text
      : entry.type === 'status'
        ? `status: ${entry.data.message}`
        : `note: ${String(entry.data.name)}`;
  const context: ExecutionContext = {
    signal: new AbortController().signal,
    report: async () => {},
    block: async () => {},
    resume: async () => {},
    onFollowup: () => () => {},
    record: (entries) =>
      inOrder(async () => {
        await sleep(delay(writes++));
        stored.push(...entries.map(describeEntry));
      }),
    reportArtifact: (artifact: ReportedArtifact) =>
      inOrder(async (): Promise<ArtifactReportResult> => {
        await sleep(delay(writes++));
        if (artifact.type === 'FILE') {
          stored.push(`artifact: ${artifact.description}`);
          return { accepted: true, artifact_uid: 'f' };
        }
        const url = (artifact as { url: string }).url;
        if (!url.startsWith('https:')) return { accepted: false, reason: `refused ${url.slice('ftp://x.test/'.length)}` };
        stored.push(`artifact: ${url}`);
        return { accepted: true, artifact_uid: url };
      }),
  };
  return { context, stored };
}

describe('agentOutput: the events’ order (docs/executors.md, "The JSON-lines protocol")', () => {
  it('stores plain lines, status messages and artifact messages in the order printed, whatever each write or read costs', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            kind: fc.constantFrom<Kind>('plain', 'plain', 'plain', 'status', 'kept', 'refused', 'file', 'missing', 'note'),
            // Whether this line ends a read, and how long the agent pauses after it.
            endsRead: fc.boolean(),
            pauseMs: fc.constantFrom(0, 0, 1, 3),
          }),
          { maxLength: 16 },
        ),
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 12 }),
        async (items, delays) => {
          const { context, stored } = fakeContext((n) => delays[n % delays.length] ?? 0);
          const errors: unknown[] = [];
          const output = agentOutput(context, {
            maxOutputBytes: 1 << 20,
            onError: (error) => errors.push(error),
            backpressure: { pause: () => {}, resume: () => {} },
            workspace,
          });
          let read = '';
          for (const [i, { kind, endsRead, pauseMs }] of items.entries()) {
            read += `${printed(i, kind)}\n`;
            if (!endsRead) continue;
            output.write(read);
            read = '';
            if (pauseMs > 0) await sleep(pauseMs);
          }
          output.write(read);
          output.end();
          await output.close();
          expect(stored).toEqual(items.map(({ kind }, i) => left(i, kind)));
          expect(errors).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  }, 60_000);
});
