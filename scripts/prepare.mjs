// The root's `prepare` script: what `npm install` (and `npm ci`) runs once the workspaces are
// linked, so a fresh clone needs no other step (docs/development.md, "What `npm install` builds").
//
// Node runs JavaScript, not the TypeScript sources, so everything that starts Node on a package
// from outside the tests — the `agentrun` bin, the examples, a host linking a package from this
// clone — reads its `dist/`. This builds that JavaScript (ESM + CJS, no .d.ts: AGENTRUN_BUILD=js,
// see tsup.base.ts) for every published package, and the dashboard's prebuilt app, two at a time.
// It takes a few seconds; `npm run build` builds the declarations too.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const tsup = join(root, 'node_modules', 'tsup', 'dist', 'cli-default.js');

/** One package's build: Node scripts run one after another in its folder. */
const step = (label, cwd, commands) => ({ label, cwd, commands });

/** Every published package's JavaScript (and the dashboard's app). */
function steps() {
  const found = [];
  for (const name of readdirSync(join(root, 'packages')).sort()) {
    const dir = join(root, 'packages', name);
    const manifestPath = join(dir, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    if (manifest.private || !manifest.scripts?.build) continue;
    const commands = [[tsup, '--silent']];
    // The dashboard's app goes into dist/app/, after tsup (whose `clean` empties dist/).
    const app = join(dir, 'scripts', 'build-app.ts');
    if (existsSync(app)) commands.push(['--conditions=agentrun-source', '--import', 'tsx', app]);
    found.push(step(manifest.name, dir, commands));
  }
  return found;
}

async function run({ label, cwd, commands }) {
  for (const args of commands) await runNode(label, cwd, args);
}

function runNode(label, cwd, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, AGENTRUN_BUILD: 'js' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${label}: build failed (exit ${code})\n${output}`))));
  });
}

/** Runs the steps `width` at a time, in order of start. */
async function runAll(all, width) {
  const queue = [...all];
  const lane = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await run(next);
  };
  await Promise.all(Array.from({ length: width }, lane));
}

if (!existsSync(tsup)) {
  // `npm install --omit=dev` (or an install that skipped the dev tools): nothing to build with.
  console.log('agentrun prepare: tsup is not installed; skipped the build (run `npm run build` after a full `npm install`)');
} else {
  const started = Date.now();
  const all = steps();
  await runAll(all, Math.min(2, availableParallelism()));
  console.log(`agentrun prepare: built ${all.length} packages (JavaScript only) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
