import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { RepositoryError } from '@agentrun/core';
import { afterAll, describe, expect, it } from 'vitest';
import { gitSources } from '../src/index.js';
import { removeTempDirs, tempDir, testRepository } from './support/repositories.js';

afterAll(removeTempDirs);

const codeOf = (promise: Promise<unknown>): Promise<string | undefined> =>
  promise.then(
    () => undefined,
    (error: unknown) => (error instanceof RepositoryError ? error.code : String(error)),
  );
const entries = (cacheDir: string) => readdirSync(cacheDir).filter((name) => name.endsWith('.git'));

describe('the cache, one entry per team (docs/repositories.md, "The cache")', () => {
  it("never answers one team from what was fetched for another's registration of the same URL", async () => {
    const origin = testRepository();
    const commit = origin.commit({ 'SKILL.md': '---\nname: private\n---\nteam A only\n' });
    const cacheDir = tempDir('cache');
    const reader = gitSources({ cacheDir, allowLocalPaths: true });
    const a = { url: origin.bare, team: 'team-a' };
    expect(await reader.resolve(a, 'main')).toBe(commit);
    expect(entries(cacheDir)).toHaveLength(1);
    expect(readFileSync(join(cacheDir, entries(cacheDir)[0] as string, 'agentrun-url'), 'utf8')).toBe(`${origin.bare}\nteam team-a\n`);

    // The repository goes away (a credential revoked, a private repository gone): team A's cache
    // still answers team A, and team B, naming the very same URL, gets nothing of it.
    rmSync(origin.bare, { recursive: true, force: true });
    expect(await reader.resolve(a, 'main')).toBe(commit);
    expect(await reader.readFile(a, commit, 'SKILL.md')).toContain('team A only');
    const b = { url: origin.bare, team: 'team-b' };
    expect(await codeOf(reader.resolve(b, 'main'))).toBe('not_found');
    expect(await codeOf(reader.readFile(b, commit, 'SKILL.md'))).toBe('not_found');
    expect(await codeOf(reader.listFiles(b, commit, ''))).toBe('not_found');
    expect(await codeOf(reader.checkout(b, commit, tempDir('dest')))).toBe('not_found');
    expect(entries(cacheDir)).toHaveLength(2);
  });

  it('refuses a read that names no team', async () => {
    const reader = gitSources({ cacheDir: tempDir('cache') });
    expect(await codeOf(reader.resolve({ url: 'https://git.example.com/a.git' } as never, 'main'))).toBe('invalid');
    expect(await codeOf(reader.resolve({ url: 'https://git.example.com/a.git', team: '' }, 'main'))).toBe('invalid');
  });

  it('reads no local path unless allowed, and never a path into its own cache', async () => {
    const origin = testRepository();
    origin.commit({ 'a.txt': 'a' });
    const cacheDir = tempDir('cache');
    const remoteOnly = gitSources({ cacheDir });
    for (const url of [origin.bare, `file://${origin.bare}`]) {
      expect(await codeOf(remoteOnly.checkUrl(url))).toBe('invalid');
      expect(await codeOf(remoteOnly.resolve({ url, team: 'team-a' }, 'main'))).toBe('invalid');
    }
    await remoteOnly.checkUrl('https://git.example.com/acme/skills.git');

    const local = gitSources({ cacheDir, allowLocalPaths: true });
    const commit = await local.resolve({ url: origin.bare, team: 'team-a' }, 'main');
    const [entry] = entries(cacheDir);
    const stolen = join(cacheDir, entry as string);
    for (const url of [stolen, `file://${stolen}`]) {
      expect(await codeOf(local.checkUrl(url))).toBe('invalid');
      expect(await codeOf(local.resolve({ url, team: 'team-b' }, `refs/cached/commits/${commit}`))).toBe('invalid');
      expect(await codeOf(local.readFile({ url, team: 'team-b' }, commit, 'a.txt'))).toBe('invalid');
    }
  });
});

describe('the cache directory (docs/repositories.md, "The cache")', () => {
  it('is made with mode 0700 when missing, by default under the user cache home', () => {
    const home = tempDir('xdg');
    const before = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = home;
    try {
      gitSources();
    } finally {
      if (before === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = before;
    }
    expect(statSync(join(home, 'agentrun', 'git')).mode & 0o777).toBe(0o700);
    const made = join(tempDir('parent'), 'a', 'cache');
    gitSources({ cacheDir: made });
    expect(statSync(made).mode & 0o777).toBe(0o700);
  });

  it('refuses a directory others may write to, or that another user owns', () => {
    const shared = tempDir('shared');
    chmodSync(shared, 0o777);
    expect(() => gitSources({ cacheDir: shared })).toThrow(/writable by its group or by everyone \(mode 777\)/);
    chmodSync(shared, 0o770);
    expect(() => gitSources({ cacheDir: shared })).toThrow(/writable by its group/);
    chmodSync(shared, 0o755);
    gitSources({ cacheDir: shared });

    const uid = process.getuid?.();
    if (uid === undefined) return;
    const foreign = tempDir('foreign');
    chownSync(foreign, uid + 4242, uid + 4242);
    expect(() => gitSources({ cacheDir: foreign })).toThrow(/belongs to user \d+, not to this server's user/);
  });

  it('checks again when the directory is replaced while the reader is in use', async () => {
    const cacheDir = tempDir('cache');
    const reader = gitSources({ cacheDir });
    rmSync(cacheDir, { recursive: true, force: true });
    mkdirSync(cacheDir, { mode: 0o777 });
    chmodSync(cacheDir, 0o777);
    await expect(reader.resolve({ url: 'https://git.example.invalid/a.git', team: 'team-a' }, 'main')).rejects.toThrow(
      /writable by its group/,
    );
  });
});
