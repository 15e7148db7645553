#!/usr/bin/env node
// An example agent speaking the process executor's protocol (docs/executors.md, "The JSON-lines
// protocol"). It reads the prompt from $AGENTRUN_PROMPT_FILE and:
// - prints plain lines (progress), its session, an artifact it writes in the workspace, and what it
//   cost (its usage: the run's request_usage);
// - answers each follow-up read from stdin;
// - with "sleep N" in the prompt, waits N seconds in a child process (of its process group);
// - with "fail" in the prompt, writes to stderr and exits 1.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const say = (message) => console.log(JSON.stringify({ agentrun: 'status', ...message }));
const send = (message) => console.log(JSON.stringify(message));

const prompt = readFileSync(process.env.AGENTRUN_PROMPT_FILE, 'utf8');
console.log(`agent pid ${process.pid}`);
send({
  agentrun: 'session',
  id: `session-${process.env.AGENTRUN_RUN_ID}`,
  link: `https://agents.example/s/${process.env.AGENTRUN_RUN_ID}`,
});
say({ message: `Read the prompt (${prompt.length} characters)` });

// Follow-ups arrive on stdin, one JSON line each.
createInterface({ input: process.stdin }).on('line', (line) => {
  const followup = JSON.parse(line);
  if (followup.agentrun === 'followup') say({ message: `Follow-up ${followup.id}: ${followup.message}` });
});

const sleep = /sleep (\d+(?:\.\d+)?)/.exec(prompt);
if (sleep) {
  const child = spawn('sleep', [sleep[1]], { stdio: 'ignore' });
  console.log(`sleeping in pid ${child.pid}`);
  await new Promise((resolve) => child.on('exit', resolve));
}

if (/\bfail\b/i.test(prompt)) {
  console.error('Something went wrong: the prompt asked me to fail');
  process.exit(1);
}

writeFileSync('summary.md', `# Summary\n\nDone: ${prompt.trim().slice(0, 200)}\n`);
send({ agentrun: 'artifact', type: 'file', name: 'summary.md', path: 'summary.md' });
// The run's totals so far, not an increment: a later report replaces these fields.
send({ agentrun: 'usage', compute_cost: 0.01, inference_cost: prompt.length / 1000 });
console.log('all done');
process.exit(0);
