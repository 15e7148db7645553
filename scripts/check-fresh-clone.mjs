// The first hour, checked as a new user lives it (docs/development.md, "A fresh clone"): clone
// the committed HEAD into a temporary folder, run `npm install` and nothing else, then use every
// entry point the README names: `npx agentrun --help`, the dashboard page `npm start` prints, and
// both embedding examples run with plain `node` (a run started through each). `.ci/run` runs it;
// `node scripts/check-fresh-clone.mjs` runs it by hand (it leaves nothing behind).
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../', import.meta.url));
/** How long one started process may take to print where it listens. */
const START_TIMEOUT_MS = 60_000;

const home = mkdtempSync(join(tmpdir(), 'agentrun-fresh-'));
const clone = join(home, 'agentrun');
const children = new Set();
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

function step(text) {
  console.log(`fresh clone: ${text}`);
}

/** A command run to its end in the clone; its output shown only when it fails. */
function run(command, args, env = {}) {
  const started = performance.now();
  try {
    const output = execFileSync(command, args, { cwd: clone, env: { ...process.env, ...env }, encoding: 'utf8', stdio: 'pipe' });
    return { output, took: seconds(started) };
  } catch (error) {
    throw new Error(`${command} ${args.join(' ')} failed (exit ${error.status}):\n${error.stdout ?? ''}${error.stderr ?? ''}`);
  }
}

/** A server started in the clone; resolves with the first match of `pattern` in what it prints. */
function start(command, args, env, pattern) {
  const child = spawn(command, args, { cwd: clone, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.add(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${command} ${args.join(' ')} printed no ${pattern} in ${START_TIMEOUT_MS} ms:\n${output}`)),
      START_TIMEOUT_MS,
    );
    const onData = (chunk) => {
      output += chunk;
      const match = pattern.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} ${args.join(' ')} exited ${code} before printing ${pattern}:\n${output}`));
    });
  });
}

/** Ends a started server and everything it started (npm start → node, and its children). */
function stop(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
  children.delete(child);
}

async function expectPage(url, contains) {
  const response = await fetch(url);
  const text = await response.text();
  if (response.status !== 200 || !text.includes(contains)) {
    throw new Error(`GET ${url} answered ${response.status}, not a page with ${JSON.stringify(contains)}:\n${text.slice(0, 500)}`);
  }
}

async function expectRun(apiBase, key) {
  const response = await fetch(`${apiBase}/agent/run`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'Say hello' }),
  });
  const body = await response.json();
  if (response.status !== 200 || typeof body.run_id !== 'string')
    throw new Error(`POST ${apiBase}/agent/run answered ${response.status}: ${JSON.stringify(body)}`);
}

/** A port nothing listens on now: the examples build their public URL from PORT before listening. */
const freePort = () =>
  new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

async function checkExample(name) {
  const env = { PORT: String(await freePort()), AGENTRUN_SECRET_KEY: randomBytes(32).toString('base64') };
  const started = performance.now();
  const match = await start(process.execPath, [`examples/${name}.mjs`], env, /run API at (\S+), key (\S+)\n[\s\S]*dashboard at (\S+)\n/);
  const [, api, key, dashboard] = match;
  await expectRun(api, key);
  await expectPage(`${dashboard}/runs`, 'data-base-path=');
  step(`node examples/${name}.mjs: listening in ${seconds(started)}, a run started, its dashboard page served`);
}

try {
  step(`cloning ${repo} (committed HEAD) into ${clone}`);
  execFileSync('git', ['clone', '--quiet', '--no-hardlinks', repo, clone], { stdio: 'inherit' });

  const install = run('npm', ['install', '--no-audit', '--no-fund']);
  step(`npm install took ${install.took}`);

  const help = run('npx', ['agentrun', '--help']);
  if (!help.output.includes('Usage: agentrun')) throw new Error(`npx agentrun --help printed no usage:\n${help.output}`);
  step(`npx agentrun --help answered in ${help.took}`);

  const server = await start('npm', ['start'], { PORT: '0', HOST: '127.0.0.1' }, /dashboard: (\S+)/);
  await expectPage(server[1], 'data-base-path="/dashboard"');
  step(`npm start: the dashboard at ${server[1]} is served`);
  for (const child of [...children]) stop(child);

  for (const name of ['express', 'fastify']) await checkExample(name);
  step('every entry point works');
} catch (error) {
  console.error(`fresh clone: FAILED: ${error.message}`);
  process.exitCode = 1;
} finally {
  for (const child of [...children]) stop(child);
  rmSync(home, { recursive: true, force: true });
}
