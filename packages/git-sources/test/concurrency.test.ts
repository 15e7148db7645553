import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { gitSources } from '../src/index.js';
import { recordingGit } from './support/recording-git.js';
import { git, removeTempDirs, tempDir, testRepository } from './support/repositories.js';

afterAll(removeTempDirs);

/** The team every read here is for. */
const TEAM = 'team-a';

const LOOP = fileURLToPath(new URL('./support/fetch-loop.ts', import.meta.url));

const output = (child: ChildProcess): Promise<string> =>
  new Promise((resolve) => {
    let text = '';
    child.stdout?.on('data', (chunk) => {
      text += chunk;
    });
    child.on('close', () => resolve(text));
  });

describe('one cache, many callers', () => {
  it('serializes the fetches of one process: concurrent refreshes of one repository share the fetch queued for them', async () => {
    const origin = testRepository();
    const first = origin.commit({ 'a.txt': '1' });
    const recorder = recordingGit();
    const reader = gitSources({ cacheDir: tempDir('cache'), allowLocalPaths: true, gitPath: recorder.gitPath });
    const repo = { url: origin.bare, team: TEAM };
    const refreshAll = () => Promise.all(Array.from({ length: 8 }, () => reader.resolve(repo, 'main', { refresh: true })));
    const fetches = () =>
      recorder
        .calls()
        .split('\n')
        .filter((line) => line.startsWith('argv:') && line.includes(' fetch ')).length;
    expect(await reader.resolve(repo, 'main')).toBe(first); // the cache exists: each call below is a stat away from its fetch
    expect(fetches()).toBe(1);
    // The first call's fetch may start before the other seven ask (they wait for a stat); those
    // seven then share the one fetch queued after it. Without sharing, eight fetches would run.
    const second = origin.commit({ 'a.txt': '2' });
    expect(await refreshAll()).toEqual(Array(8).fill(second));
    expect(fetches()).toBeLessThanOrEqual(1 + 2);
    // Another credential never rides on a queued fetch: two fetches.
    const before = fetches();
    await Promise.all([
      reader.resolve(repo, 'main', { refresh: true }),
      reader.resolve({ ...repo, credential: 'other' }, 'main', { refresh: true }),
    ]);
    expect(fetches()).toBe(before + 2);
  });

  it('two processes sharing a cache directory (and pushes meanwhile) both succeed, and the cache holds one repository', async () => {
    const origin = testRepository();
    const first = origin.commit({ 'a.txt': '1' });
    const cacheDir = tempDir('cache');
    const children = [0, 1].map(() =>
      spawn(process.execPath, ['--conditions=agentrun-source', '--import', 'tsx', LOOP, cacheDir, origin.bare, '6'], {
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    );
    const outputs = children.map(output);
    const second = origin.commit({ 'a.txt': '2' });
    const results = (await Promise.all(outputs)).map((text) => JSON.parse(text) as { commits?: string[]; error?: string });
    for (const result of results) {
      expect(result.error).toBeUndefined();
      expect(result.commits).toHaveLength(6);
      for (const commit of result.commits ?? []) expect([first, second]).toContain(commit);
    }
    expect(readdirSync(cacheDir).filter((name) => name.endsWith('.git'))).toHaveLength(1);
    expect(readdirSync(cacheDir).filter((name) => name.startsWith('.new-') || name.startsWith('.tmp-'))).toEqual([]);
  });

  it('waits for a fetch lock another process holds, and goes on once it is released', async () => {
    const origin = testRepository();
    const commit = origin.commit({ 'a.txt': '1' });
    const cacheDir = tempDir('cache');
    const reader = gitSources({ cacheDir, allowLocalPaths: true });
    const repo = { url: origin.bare, team: TEAM };
    await reader.resolve(repo, 'main');
    const [entry] = readdirSync(cacheDir).filter((name) => name.endsWith('.git'));
    const lock = join(cacheDir, `${entry}.lock`);
    // Another process holding the repository's lock (as its fetch would), until told to stop.
    const holder = spawn('flock', ['--no-fork', lock, 'sleep', '60'], { stdio: 'ignore' });
    try {
      // Until flock holds it, before the fetch asks: a try without waiting fails (exit 1) only then.
      const held = () => spawnSync('flock', ['--nonblock', lock, 'true']).status === 1;
      for (let tries = 0; !held(); tries++) {
        if (tries === 1000) throw new Error('flock did not take the lock');
        await sleep(10);
      }
      let settled = false;
      const refreshed = reader.resolve(repo, 'main', { refresh: true }).finally(() => {
        settled = true;
      });
      await sleep(1000);
      expect(settled).toBe(false);
      holder.kill('SIGKILL');
      expect(await refreshed).toBe(commit);
    } finally {
      holder.kill('SIGKILL');
    }
    expect(git(origin.bare, 'rev-parse', 'main')).toBe(commit);
  });
});
