// The network probe of test/hostile/container-executor.test.ts: for each `host:port` on the
// prompt's lines after the first, a TCP connection is tried; prints "reached <addr>" or
// "unreachable <addr>: <code>", then "probe done".
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';

const targets = readFileSync(process.env.AGENTRUN_PROMPT_FILE, 'utf8')
  .split('\n')
  .slice(1)
  .map((l) => l.trim())
  .filter(Boolean);
for (const target of targets) {
  const [host, port] = target.split(/:(?=\d+$)/);
  const verdict = await new Promise((resolve) => {
    const socket = connect({ host, port: Number(port), timeout: 3000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(`reached ${target}`);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(`unreachable ${target}: ETIMEDOUT`);
    });
    socket.once('error', (error) => resolve(`unreachable ${target}: ${error.code}`));
  });
  console.log(verdict);
}
console.log('probe done');
