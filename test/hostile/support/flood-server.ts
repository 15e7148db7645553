/**
 * The server side of the output-flood test (test/hostile/output-flood.test.ts), in a process of
 * its own so its memory is the worker's and the store's alone: a worker with the process executor
 * on the memory store, or on PostgreSQL (DATABASE_URL, AGENTRUN_DB_SCHEMA), runs one run per
 * flooding agent, all at once, each with a short timeout, and prints one line
 * `flood-result <json>`: each run's end and transcript, and this process's resident memory before
 * the runs and at its peak (VmHWM, Linux's /proc/self/status).
 *
 * Env: FLOOD_STORE (memory | postgres), FLOOD_AGENTS (JSON: { name: shell command line }),
 * FLOOD_TIMEOUT_MS, FLOOD_MAX_OUTPUT_BYTES (optional: the executor's default otherwise),
 * FLOOD_WORKSPACE_ROOT.
 */
import { readFileSync } from 'node:fs';
import { createAgentRun, type Store } from '@agentrun/core';
import type { RunEventRecord } from '@agentrun/core/store';
import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import { processExecutor } from '../../../packages/executor-process/src/index.js';
import { createPostgresStore } from '../../../packages/store-postgres/src/index.js';

/** What the test reads of one run. */
export interface FloodRun {
  state: string;
  error_code: string | null;
  events: number;
  /** Characters of the output events' text, and of every event's JSON data. */
  outputChars: number;
  dataChars: number;
  /** The output-truncated markers (status events), and the store's own `truncated` event. */
  markers: string[];
  storeTruncated: boolean;
  /** The last event's type and `to` (the run's outcome, when the transcript kept it). */
  last: string;
  /** From the run's creation to its end (for the printed figures; not asserted). */
  ms: number;
}

export interface FloodResult {
  rssBeforeKb: number;
  /** The peak when every run had ended, and after the transcripts were read back (printed only). */
  hwmKb: number;
  hwmAfterReadKb: number;
  runs: Record<string, FloodRun>;
}

const must = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const memoryKb = (field: 'VmRSS' | 'VmHWM') => {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
  if (!match) throw new Error(`no ${field} in /proc/self/status`);
  return Number(match[1]);
};

const agents = JSON.parse(must('FLOOD_AGENTS')) as Record<string, string>;
const maxOutputBytes = process.env.FLOOD_MAX_OUTPUT_BYTES ? Number(process.env.FLOOD_MAX_OUTPUT_BYTES) : undefined;
const store: Store =
  must('FLOOD_STORE') === 'memory'
    ? createMemoryStore()
    : createPostgresStore({ connectionString: must('DATABASE_URL'), schema: must('AGENTRUN_DB_SCHEMA'), poolSize: 4 });
const executor = processExecutor({
  // Each run's agent is the shell command line its prompt holds: one executor serves them all.
  command: '/bin/sh',
  args: ['-c', 'eval "$(cat "$AGENTRUN_PROMPT_FILE")"'],
  workspaceRoot: must('FLOOD_WORKSPACE_ROOT'),
  timeoutMs: Number(must('FLOOD_TIMEOUT_MS')),
  killGraceMs: 1000,
  ...(maxOutputBytes !== undefined ? { maxOutputBytes } : {}),
  onError: (error) => console.error('executor error', error),
});
const agentrun = createAgentRun({ store, executor });
const principal = testPrincipal();

// A settled process first: the baseline is the server's, before any run.
global.gc?.();
const rssBeforeKb = memoryKb('VmRSS');
const created = new Map<string, { runId: string; at: number }>();
for (const [name, command] of Object.entries(agents)) {
  const { run_id } = (await agentrun.services.runs.create(principal, { prompt: command })).body;
  created.set(name, { runId: run_id, at: performance.now() });
}
const worker = agentrun.worker({ concurrency: created.size, pollIntervalMs: 20, onError: (e) => console.error('worker error', e) });
worker.start();

// Phase one: wait for every run to end. The peak is read then, before this script reads the
// transcripts back (four transcripts of 4 MB, parsed at once, are the test's memory, not the server's).
const ENDED = ['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'];
const ended = await Promise.all(
  [...created].map(async ([name, { runId, at }]) => {
    for (;;) {
      const run = await agentrun.services.runs.get(principal, runId);
      if (ENDED.includes(run.state)) return { name, runId, run, ms: performance.now() - at };
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }),
);
const hwmKb = memoryKb('VmHWM');

// Phase two, one run at a time: the outcome's state event is appended after the state is written
// (a second statement), so read the transcript once it has come, or as it is after 5 s.
const runs: Record<string, FloodRun> = {};
for (const { name, runId, run, ms } of ended) {
  let kept = await transcript(runId);
  for (let waited = 0; kept.last !== `state ${run.state}` && waited < 5000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    kept = await transcript(runId);
  }
  runs[name] = { ...kept, state: run.state, error_code: run.status_message?.error_code ?? null, ms };
}
await worker.stop();
const result: FloodResult = { rssBeforeKb, hwmKb, hwmAfterReadKb: memoryKb('VmHWM'), runs };
console.log(`flood-result ${JSON.stringify(result)}`);
process.exit(0);

async function transcript(runId: string): Promise<Omit<FloodRun, 'state' | 'error_code' | 'ms'>> {
  const all: RunEventRecord[] = [];
  for (;;) {
    const page = await store.runEvents.list(runId, { after: all.length, limit: 1000 });
    all.push(...page);
    if (page.length < 1000) break;
  }
  const text = (e: RunEventRecord) =>
    String((e.data as { text?: unknown; message?: unknown }).text ?? (e.data as { message?: unknown }).message ?? '');
  return {
    events: all.length,
    outputChars: all.filter((e) => e.type === 'output').reduce((n, e) => n + text(e).length, 0),
    dataChars: all.reduce((n, e) => n + JSON.stringify(e.data).length, 0),
    markers: all.filter((e) => e.type === 'status' && text(e).startsWith('Output truncated')).map(text),
    storeTruncated: all.some((e) => e.type === 'truncated'),
    last: `${all.at(-1)?.type} ${(all.at(-1)?.data as { to?: string } | undefined)?.to ?? ''}`.trim(),
  };
}
