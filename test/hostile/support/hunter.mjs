// The secret hunter of test/hostile/secret-hunt.test.ts: an agent that prints whatever it can read
// that might hold the server's secrets, one line per source (NULs and newlines as spaces, the
// first 16 KiB), and last how many places it looked at. A run whose prompt starts "victim" only
// waits: another run's workspace for the hunter to look for. Paths the hunter is told of (the
// worst case: it knows where the server keeps a secret) are the prompt's lines after the first.
import { execFileSync } from 'node:child_process';
import { closeSync, fstatSync, mkdtempSync, openSync, readdirSync, readlinkSync, readSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const prompt = readText(process.env.AGENTRUN_PROMPT_FILE) ?? '';
if (prompt.startsWith('victim')) setInterval(() => {}, 60_000);
else hunt();

function hunt() {
  let looked = 0;
  const show = (label, path) => {
    looked++;
    const text = readText(path);
    if (text) console.log(`${label} ${path}: ${text.replace(/[\0\r\n]/g, ' ')}`);
  };
  const list = (dir) => {
    try {
      return readdirSync(dir);
    } catch (error) {
      return [`(${error.code})`];
    }
  };
  console.log(`whoami: uid=${process.getuid()} gid=${process.getgid()} groups=${process.getgroups()}`);
  console.log(`env: ${JSON.stringify(process.env)}`);
  looked++;
  // What it may do beyond reading: its capabilities, and whether it can mount over what it is shown.
  const capEff = /^CapEff:\s*(\w+)$/m.exec(readText('/proc/self/status') ?? '')?.[1];
  console.log(`caps: ${capEff}`);
  try {
    const target = mkdtempSync(join(tmpdir(), 'hunter-'));
    execFileSync('mount', ['-t', 'tmpfs', 'none', target], { stdio: 'ignore' });
    console.log('mounted a tmpfs');
    execFileSync('umount', [target], { stdio: 'ignore' });
  } catch {
    // Not allowed: good.
  }
  // As root in its own mount namespace, /proc can be unmounted: the host's shows again below it.
  try {
    execFileSync('umount', ['/proc'], { stdio: 'ignore' });
    console.log('unmounted the namespace /proc');
  } catch {
    // Not allowed: good.
  }
  const pids = list('/proc').filter((name) => /^\d+$/.test(name));
  console.log(`processes: ${pids.length}`);
  for (const pid of pids) {
    show('environ', `/proc/${pid}/environ`);
    show('cmdline', `/proc/${pid}/cmdline`);
    for (const name of list(`/proc/${pid}/cwd`))
      if (/env|secret|key|token|\.pem$/i.test(name)) show('cwd-file', `/proc/${pid}/cwd/${name}`);
  }
  // Inherited descriptors: every one but stdin (it waits for follow-ups).
  for (const fd of list('/proc/self/fd')) {
    let target = '';
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {}
    console.log(`my fd ${fd} -> ${target}`);
    if (Number(fd) > 2) show('my-fd', `/proc/self/fd/${fd}`);
  }
  // The workspace's parents, and other runs' workspaces.
  const workspace = process.env.AGENTRUN_WORKSPACE ?? process.cwd();
  for (let dir = dirname(workspace); ; dir = dirname(dir)) {
    looked++;
    console.log(`ls ${dir}: ${list(dir).join(' ')}`);
    if (dir === '/') break;
  }
  // A run's directory holds its workspace (docs/executors.md, "The workspace").
  const root = dirname(dirname(workspace));
  for (const run of list(root)) for (const file of ['prompt.md', 'run.json']) show('other-run', join(root, run, 'workspace', file));
  // Where a server keeps its own, and the paths the prompt names.
  for (const dir of ['/root', '/home', '/etc/agentrun', '/run/secrets', '/var/run/secrets', '/tmp', '/var/tmp']) {
    for (const name of list(dir)) show('file', join(dir, name));
  }
  show('file', '/etc/environment');
  show('file', '/etc/shadow');
  for (const path of prompt.split('\n').slice(1)) if (path.trim()) show('known', path.trim());
  console.log(`hunter looked at ${looked} places`);
}

/** The first 16 KiB of a regular file, or undefined when it cannot be read. */
function readText(path) {
  if (!path) return undefined;
  let fd;
  try {
    if (!statSync(path).isFile()) return undefined;
    fd = openSync(path, 'r');
    if (!fstatSync(fd).isFile()) return undefined;
    const buffer = Buffer.alloc(16384);
    const n = readSync(fd, buffer, 0, buffer.length, null);
    return buffer.subarray(0, n).toString('utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
