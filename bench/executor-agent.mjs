// The agent of the `executor` bench (bench/executor.ts), a wrapper around the example agent
// (packages/executor-process/examples/agent.mjs). It leaves stamps in the directory
// AGENTRUN_BENCH_STAMPS (set through the executor's `env.set`): `<run id>.start` when the agent
// process starts and `<run id>.term` when it receives SIGTERM, each holding the time on the clock
// every process of the bench shares (performance.timeOrigin + performance.now()).
// A prompt with "bench: lines N" writes N status lines, each carrying the time it was written.
// A prompt with "bench: wait" waits for the signal here: the example agent's own wait (a `sleep`
// child in its process group) ends with the same group signal and lets the agent exit 0 before
// its SIGTERM handler ran, so its receipt could not be stamped. Any other prompt runs the example
// agent in this process (one node start per run).
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.AGENTRUN_BENCH_STAMPS;
const runId = process.env.AGENTRUN_RUN_ID;
if (!dir || !runId) throw new Error('AGENTRUN_BENCH_STAMPS and AGENTRUN_RUN_ID are required');

/** Written then renamed, so the bench never reads half a stamp. */
function stamp(kind) {
  const now = performance.timeOrigin + performance.now();
  const file = join(dir, `${runId}.${kind}`);
  writeFileSync(`${file}.tmp`, String(now));
  renameSync(`${file}.tmp`, file);
}

// The handler first: a cancel may come as soon as the start stamp is there.
process.on('SIGTERM', () => {
  stamp('term');
  process.exit(143);
});
stamp('start');

const prompt = readFileSync(process.env.AGENTRUN_PROMPT_FILE, 'utf8');
const lines = /bench: lines (\d+)/.exec(prompt);
if (prompt.includes('bench: wait')) {
  console.log('waiting for a cancel');
  setInterval(() => {}, 60_000);
} else if (lines) {
  // Status lines of the protocol, each saying when it was written, LINE_GAP_MS apart (the first
  // after a pause, so the bench's stream is open), then a clean exit.
  const LINE_GAP_MS = 20;
  await new Promise((resolve) => setTimeout(resolve, 300));
  for (let i = 0; i < Number(lines[1]); i++) {
    const message = `lag ${performance.timeOrigin + performance.now()}`;
    console.log(JSON.stringify({ agentrun: 'status', message }));
    await new Promise((resolve) => setTimeout(resolve, LINE_GAP_MS));
  }
  process.exit(0);
} else {
  await import(new URL('../packages/executor-process/examples/agent.mjs', import.meta.url).href);
}
