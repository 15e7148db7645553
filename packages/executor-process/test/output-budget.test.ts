import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutionContext, ExecutionInput, RecordOptions, TranscriptEntry } from '@agentrun/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processExecutor } from '../src/index.js';

/**
 * The output budget and the stop path with a real agent (docs/executors.md, "Output budget"):
 * `execute` called directly, with a context standing in for the worker and its store.
 */

const input = (runId: string): ExecutionInput =>
  ({
    run: { run_id: runId, prompt: 'flood', agent_config: {}, attachments: [] },
    attempt: 1,
    followups: [],
  }) as unknown as ExecutionInput;

/** A store that keeps what it is given, each write taking `writeMs`. */
function context({ writeMs = 0 } = {}) {
  const entries: TranscriptEntry[] = [];
  let writes = 0;
  const ctx: ExecutionContext = {
    signal: new AbortController().signal,
    report: async () => {},
    block: async () => {},
    resume: async () => {},
    onFollowup: () => () => {},
    async record(batch: readonly TranscriptEntry[], _options?: RecordOptions) {
      writes++;
      if (writeMs > 0) await new Promise((resolve) => setTimeout(resolve, writeMs));
      entries.push(...batch);
    },
  };
  return { ctx, entries, writes: () => writes };
}

describe('processExecutor: output budget and stop', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'agentrun-output-budget-test-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('past maxOutputBytes: one marker, the rest read (the agent is not blocked) and dropped, its result still the outcome', async () => {
    // 20 lines of 1,000 bytes with the newline, a status, 5 MB more, then the result.
    const script = [
      'L=$(head -c 999 /dev/zero | tr "\\0" x)',
      'i=0; while [ $i -lt 20 ]; do echo "$L"; i=$((i+1)); done',
      'echo \'{"agentrun":"status","message":"past the budget"}\'',
      'yes "$L" | head -c 5000000',
      'echo \'{"agentrun":"result","status":"succeeded","message":"all printed"}\'',
    ].join('\n');
    const executor = processExecutor({ command: '/bin/sh', args: ['-c', script], workspaceRoot: root, maxOutputBytes: 10_500 });
    const store = context();
    const outcome = await executor.execute(input('run-budget'), store.ctx);
    expect(outcome).toEqual({ status: 'succeeded', message: 'all printed' });
    expect(store.entries.filter((e) => e.type === 'output')).toHaveLength(10);
    expect(store.entries.slice(10)).toEqual([
      {
        type: 'status',
        data: { message: "Output truncated after 10000 bytes: the agent's output beyond maxOutputBytes (10500) is read and not kept" },
      },
    ]);
  });

  it('a timeout ends the run without waiting for the lines queued for a slow store: the write under way and one more', async () => {
    // Each write takes 100 ms; the agent floods (its pipe and the queue hold some 60,000 lines when
    // the timeout fires: 600 writes, a minute, before), and ignores SIGTERM.
    const executor = processExecutor({
      command: '/bin/sh',
      args: ['-c', "trap '' TERM; yes | head -c 1000000; exec sleep 30"],
      workspaceRoot: root,
      timeoutMs: 300,
      killGraceMs: 200,
    });
    const store = context({ writeMs: 100 });
    const outcome = await executor.execute(input('run-slow-store'), store.ctx);
    expect(outcome).toEqual({ status: 'failed', message: 'The agent ran longer than 300 ms', error_code: 'timeout' });
    expect(store.entries.at(-1)).toEqual({
      type: 'status',
      data: {
        message: expect.stringMatching(/^Output truncated after \d+ bytes: the run was stopped \(timeout\) with output still waiting/),
      },
    });
    expect(store.writes()).toBeLessThan(20);
  });
});
