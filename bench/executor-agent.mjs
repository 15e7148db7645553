// The agent of the `executor` bench (bench/executor.ts), a wrapper around the example agent
// (packages/executor-process/examples/agent.mjs). It leaves stamps in the directory
// AGENTRUN_BENCH_STAMPS (set through the executor's `env.set`): `<run id>.start` when the agent
// process starts, holding the time and the agent's pid (its process group's id: the executor
// spawns it detached), and `<run id>.term` when it receives SIGTERM, holding the time. Times are
// on the clock every process of the bench shares (performance.timeOrigin + performance.now()).
// A prompt with "bench: status N" writes N protocol status messages (the executor writes each at
// once), "bench: output N" N plain output lines (which, coming faster than one per 50 ms, it
// gathers into a write per 50 ms), each carrying the time it was written.
// A prompt with "bench: wait" waits for the signal here: the example agent's own wait (a `sleep`
// child in its process group) ends with the same group signal and lets the agent exit 0 before
// its SIGTERM handler ran, so its receipt could not be stamped. Any other prompt runs the example
// agent in this process (one node start per run).
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.AGENTRUN_BENCH_STAMPS;
const runId = process.env.AGENTRUN_RUN_ID;
if (!dir || !runId) throw new Error('AGENTRUN_BENCH_STAMPS and AGENTRUN_RUN_ID are required');

const now = () => performance.timeOrigin + performance.now();

/** Written then renamed, so the bench never reads half a stamp. */
function stamp(kind, text) {
  const file = join(dir, `${runId}.${kind}`);
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

// The handler first: a cancel may come as soon as the start stamp is there.
process.on('SIGTERM', () => {
  stamp('term', String(now()));
  process.exit(143);
});
stamp('start', `${now()} ${process.pid}`);

const prompt = readFileSync(process.env.AGENTRUN_PROMPT_FILE, 'utf8');
const lines = /bench: (status|output) (\d+)/.exec(prompt);
if (prompt.includes('bench: wait')) {
  console.log('waiting for a cancel');
  setInterval(() => {}, 60_000);
} else if (lines) {
  // LINE_GAP_MS apart (the first after a pause, so the bench's stream is open), then a clean exit.
  const LINE_GAP_MS = 20;
  await new Promise((resolve) => setTimeout(resolve, 300));
  for (let i = 0; i < Number(lines[2]); i++) {
    const message = `lag ${now()}`;
    console.log(lines[1] === 'status' ? JSON.stringify({ agentrun: 'status', message }) : message);
    await new Promise((resolve) => setTimeout(resolve, LINE_GAP_MS));
  }
  process.exit(0);
} else {
  await import(new URL('../packages/executor-process/examples/agent.mjs', import.meta.url).href);
}
