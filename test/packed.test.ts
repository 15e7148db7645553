import { type ChildProcess, execFileSync, execSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installLine, type Packed, pack } from '../scripts/pack.js';
import { watchOutput } from './support/child-output.js';
import { freePort } from './support/free-port.js';

// Embedding agentrun before it is on the registry (README, "Embed it"): the packages packed from
// this clone as `npm run pack` packs them, installed with the line it prints (Express included)
// into an app in a temporary folder outside the repository, and the README's Express example run
// there with plain node. Packs what `dist/` holds (the `npm install` of the clone builds it; CI's
// full build adds the declarations) rather than building, so it never rewrites `dist/` under other
// tests.
const EXAMPLE = new URL('../examples/express.mjs', import.meta.url);

let app: string;
/** Where the tarballs go: beside the app, not in it, as a clone's `packed/` would be. */
let vendor: string;
let child: ChildProcess | undefined;
/** Why nothing was packed: `dist/` missing or older than the sources (a build since the last edit is due). */
let unbuilt: Error | undefined;
beforeAll(() => {
  app = realpathSync(mkdtempSync(join(tmpdir(), 'agentrun-packed-app-')));
  vendor = realpathSync(mkdtempSync(join(tmpdir(), 'agentrun-packed-vendor-')));
  let packed: Packed;
  try {
    packed = pack({
      names: ['@agentrun/adapter-express', '@agentrun/store-memory', '@agentrun/dashboard'],
      out: vendor,
      build: false,
    });
  } catch (error) {
    unbuilt = error as Error;
    return;
  }
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'embedding-app', private: true, type: 'module' }));
  // The line `npm run pack` prints, run by a shell in the app's directory as a user pastes it;
  // --prefer-offline: Express comes from npm's cache, where the repository's own install put it.
  execSync(`${installLine(packed.install)} --no-audit --no-fund --prefer-offline`, { cwd: app, stdio: 'pipe' });
  copyFileSync(EXAMPLE, join(app, 'server.mjs'));
}, 120_000);
afterAll(() => {
  child?.kill('SIGKILL');
  for (const dir of [app, vendor]) if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * After an edit and before a build, `dist/` is stale: skipped saying so (with CI=true, where the
 * build comes first, a failure), as the PostgreSQL tests do when no server answers.
 */
const needsBuilt = (skip: (note: string) => void) => {
  if (!unbuilt) return;
  if (process.env.CI === 'true') throw unbuilt;
  console.warn(`test/packed.test.ts skipped: ${unbuilt.message}`);
  skip(unbuilt.message);
};

describe('the packed packages in an app outside the repository', () => {
  it('install from their tarballs alone: every @agentrun package resolves inside the app', ({ skip }) => {
    needsBuilt(skip);
    const where = execFileSync(process.execPath, ['--input-type=module', '-e', "console.log(import.meta.resolve('@agentrun/core'))"], {
      cwd: app,
      encoding: 'utf8',
    });
    expect(where.trim()).toBe(`file://${join(app, 'node_modules', '@agentrun', 'core', 'dist', 'index.js')}`);
    // The framework the adapter mounts into is the app's own dependency, as it imports it.
    const { dependencies } = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
    expect(Object.keys(dependencies).sort()).toEqual([
      '@agentrun/adapter-express',
      '@agentrun/core',
      '@agentrun/dashboard',
      '@agentrun/node',
      '@agentrun/store-memory',
      'express',
    ]);
  });

  it('run the Express example as written: a run through the API, the dashboard page', async ({ skip }) => {
    needsBuilt(skip);
    child = spawn(process.execPath, ['server.mjs'], {
      cwd: app,
      env: { PATH: process.env.PATH, PORT: String(await freePort()), AGENTRUN_SECRET_KEY: randomBytes(32).toString('base64') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = watchOutput(child);
    const [api, key] = (await output.next(/run API at (\S+), key (\S+)/)) as [string, string];
    const [dashboard] = (await output.next(/dashboard at (\S+)/)) as [string];
    const started = await fetch(`${api}/agent/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'Fix the bug in auth.go' }),
    });
    expect(started.status, await started.clone().text()).toBe(200);
    const { run_id } = (await started.json()) as { run_id: string };
    const read = await fetch(`${api}/agent/runs/${run_id}`, { headers: { authorization: `Bearer ${key}` } });
    expect(await read.json()).toMatchObject({ run_id, prompt: 'Fix the bug in auth.go' });
    const page = await fetch(`${dashboard}/runs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('data-base-path="/agents/dashboard"');
  });
});
