import { spawn } from 'node:child_process';
import { watchdogFor } from '../../src/watchdog.js';

// A stand-in for a worker, for watchdog.test.ts: three "agents" (sleep, each in a process group of
// its own, as the executor spawns them), two held by this process's one watchdog and one held then
// released. It prints their pids as JSON and waits to be killed.
const agent = () => {
  const child = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
  child.unref();
  return child.pid as number;
};
const held = [agent(), agent()];
const released = agent();
const watchdog = watchdogFor(100);
watchdog.hold(held[0] as number);
watchdog.hold(released);
watchdog.hold(held[1] as number);
watchdog.release(released);
console.log(JSON.stringify({ held, released }));
setInterval(() => {}, 60_000);
