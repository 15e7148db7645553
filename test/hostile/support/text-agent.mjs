// An agent for test/hostile/agent-text.test.ts: NUL and lone surrogates in every field of every
// protocol message, and NUL bytes in plain lines, each between numbered plain lines, then its
// result ("succeeded" or "failed", argv[2]) with hostile text too. Each start appends a line to
// the file AGENTRUN_TEST_STARTS names (outside the workspace), so the test counts executions.
import { appendFileSync } from 'node:fs';

appendFileSync(process.env.AGENTRUN_TEST_STARTS, `${process.env.AGENTRUN_RUN_ID} ${process.env.AGENTRUN_ATTEMPT}\n`);
const outcome = process.argv[2];
const bad = (what) => `${what}:\u0000:\ud800:\udc00:end`;
const message = (fields) => JSON.stringify({ agentrun: fields.agentrun, ...fields });
let n = 0;
const lines = [];
const numbered = () => lines.push(`line ${++n}`);

numbered();
lines.push(message({ agentrun: 'status', message: bad('status') }));
numbered();
lines.push(message({ agentrun: 'session', id: bad('id'), link: `https://agents.example/${bad('link')}` }));
numbered();
lines.push(message({ agentrun: 'artifact', type: bad('type'), name: bad('name'), path: bad('path'), url: bad('url') }));
numbered();
lines.push('plain:\u0000:raw NUL byte');
numbered();
// Starts like a message but is not JSON: output, as it is (a raw NUL inside).
lines.push('{"agentrun": not json \u0000');
numbered();
// Escaped in a message that is not one of the protocol's: output, the escapes as printed.
lines.push(message({ agentrun: 'unknown', text: bad('unknown') }));
numbered();
lines.push(
  message(
    outcome === 'failed'
      ? { agentrun: 'result', status: 'failed', message: bad('result'), error_code: bad('code') }
      : { agentrun: 'result', status: 'succeeded', message: bad('result') },
  ),
);
numbered();
process.stdout.write(`${lines.join('\n')}\n`);
