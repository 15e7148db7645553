import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { RepositoryError } from '@agentrun/core';
import { afterAll, describe, expect, it } from 'vitest';
import { gitSources } from '../src/index.js';
import { git, removeTempDirs, tempDir, testRepository } from './support/repositories.js';

afterAll(removeTempDirs);

/** The team every read here is for. */
const TEAM = 'team-a';

const rejectsWith = async (promise: Promise<unknown>, code: string, text?: RegExp) => {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RepositoryError);
  expect((error as RepositoryError).code).toBe(code);
  if (text) expect((error as RepositoryError).message).toMatch(text);
};

describe('gitSources over bare repositories on disk', () => {
  it('resolves branches, tags (light and annotated) and SHAs, and reads files and listings at a commit', async () => {
    const origin = testRepository();
    const first = origin.commit({
      'README.md': '# hello\n',
      'skills/review/SKILL.md': '---\nname: review\n---\nReview.\n',
      'skills/x.txt': 'x',
    });
    origin.tag('v1');
    origin.tag('v1-annotated', 'the first release');
    const second = origin.commit({ 'README.md': '# hello again\n', 'skillsmore/y.txt': 'y' }, 'feature');
    const reader = gitSources({ cacheDir: tempDir('cache'), allowLocalPaths: true });
    const repo = { url: origin.bare, team: TEAM };

    expect(await reader.resolve(repo, 'main')).toBe(first);
    expect(await reader.resolve(repo, 'feature')).toBe(second);
    expect(await reader.resolve(repo, 'refs/heads/feature')).toBe(second);
    expect(await reader.resolve(repo, 'v1')).toBe(first);
    expect(await reader.resolve(repo, 'v1-annotated')).toBe(first);
    expect(await reader.resolve(repo, second)).toBe(second);
    expect(await reader.resolve({ url: `file://${origin.bare}`, team: TEAM }, 'main')).toBe(first);
    // A branch and a longer one under its name (possible as a tag `release` and a branch `release/1`).
    origin.tag('release');
    const third = origin.commit({ 'c.txt': 'c' }, 'release/1');
    expect(await reader.resolve(repo, 'release')).toBe(second);
    expect(await reader.resolve(repo, 'release/1')).toBe(third);
    expect(await reader.resolve(repo, 'refs/tags/release')).toBe(second);

    expect(await reader.readFile(repo, first, 'README.md')).toBe('# hello\n');
    expect(await reader.readFile(repo, second, 'README.md')).toBe('# hello again\n');
    expect(await reader.readFile(repo, first, 'skills/review/SKILL.md')).toContain('name: review');
    expect(await reader.readFile(repo, first, 'missing.md')).toBeUndefined();
    expect(await reader.readFile(repo, first, 'skills')).toBeUndefined(); // a directory is no file
    expect(await reader.readFile(repo, first, 'x blob 5')).toBeUndefined(); // read as "<name> missing", never as an object

    expect(await reader.listFiles(repo, second, '')).toEqual(['README.md', 'skills/review/SKILL.md', 'skills/x.txt', 'skillsmore/y.txt']);
    // `skills` is a directory, not a prefix: skillsmore/ is not under it.
    expect(await reader.listFiles(repo, second, 'skills')).toEqual(['skills/review/SKILL.md', 'skills/x.txt']);
    expect(await reader.listFiles(repo, second, 'skills/')).toEqual(['skills/review/SKILL.md', 'skills/x.txt']);
    expect(await reader.listFiles(repo, second, 'nothing')).toEqual([]);
    expect(await reader.listFiles(repo, second, 'README.md')).toEqual([]);
  });

  it('answers a known ref from the cache until refresh, then sees the new commit', async () => {
    const origin = testRepository();
    const first = origin.commit({ 'a.txt': '1' });
    const reader = gitSources({ cacheDir: tempDir('cache'), allowLocalPaths: true });
    const repo = { url: origin.bare, team: TEAM };
    expect(await reader.resolve(repo, 'main')).toBe(first);
    const second = origin.commit({ 'a.txt': '2' });
    expect(await reader.resolve(repo, 'main')).toBe(first);
    expect(await reader.resolve(repo, 'main', { refresh: true })).toBe(second);
    expect(await reader.readFile(repo, second, 'a.txt')).toBe('2');
    // A commit pinned earlier still reads the same.
    expect(await reader.readFile(repo, first, 'a.txt')).toBe('1');
  });

  it('maps failures to RepositoryError codes naming the repository and ref', async () => {
    const origin = testRepository();
    const commit = origin.commit({ 'a.txt': '1' });
    const reader = gitSources({ cacheDir: tempDir('cache'), allowLocalPaths: true });
    const repo = { url: origin.bare, team: TEAM };
    await rejectsWith(reader.resolve(repo, 'no-such-branch'), 'not_found', /no-such-branch/);
    await rejectsWith(reader.resolve(repo, 'f'.repeat(40)), 'not_found', new RegExp(origin.bare));
    await rejectsWith(reader.readFile(repo, 'e'.repeat(40), 'a.txt'), 'not_found');
    await rejectsWith(reader.resolve({ url: join(tempDir('empty'), 'nothing.git'), team: TEAM }, 'main'), 'not_found');
    await rejectsWith(reader.resolve(repo, 'main~1'), 'invalid');
    await rejectsWith(reader.resolve(repo, '--upload-pack=touch /tmp/x'), 'invalid');
    await rejectsWith(reader.readFile(repo, 'main', 'a.txt'), 'invalid', /full commit SHA/);
    await rejectsWith(reader.readFile(repo, commit, '../a.txt'), 'invalid');
    await rejectsWith(reader.readFile(repo, commit, 'a.txt\nHEAD:a.txt'), 'invalid');
    await rejectsWith(reader.resolve({ url: 'ext::sh -c touch% /tmp/pwned', team: TEAM }, 'main'), 'invalid');
    await rejectsWith(reader.resolve({ url: 'http://127.0.0.1:1/nothing.git', team: TEAM }, 'main'), 'unreachable', /127\.0\.0\.1:1/);
  });

  it('refuses a file larger than the limit, a listing past its count, and text that is not UTF-8', async () => {
    const origin = testRepository();
    const commit = origin.commit({
      'big.txt': 'x'.repeat(2048),
      'small.txt': 'x'.repeat(1024),
      'latin1.txt': Uint8Array.of(0x63, 0x61, 0x66, 0xe9),
      'd/1': '',
      'd/2': '',
      'd/3': '',
    });
    const reader = gitSources({ cacheDir: tempDir('cache'), allowLocalPaths: true, maxFileBytes: 1024, maxListedFiles: 5 });
    const repo = { url: origin.bare, team: TEAM };
    await reader.resolve(repo, 'main');
    expect(await reader.readFile(repo, commit, 'small.txt')).toHaveLength(1024);
    await rejectsWith(reader.readFile(repo, commit, 'big.txt'), 'invalid', /2048 bytes, more than the limit of 1024/);
    await rejectsWith(reader.readFile(repo, commit, 'latin1.txt'), 'invalid', /not UTF-8/);
    expect(await reader.listFiles(repo, commit, 'd')).toEqual(['d/1', 'd/2', 'd/3']);
    await rejectsWith(reader.listFiles(repo, commit, ''), 'invalid', /more than 5 files/);
  });

  it('checks a commit out into a directory, with modes and links, and no .git', async () => {
    const origin = testRepository();
    const first = origin.commit({ 'src/main.sh': '#!/bin/sh\necho hi\n', 'notes.md': 'one' });
    const work = join(origin.bare, '..', 'repo-work');
    git(work, 'update-index', '--chmod=+x', 'src/main.sh');
    git(work, 'commit', '--quiet', '-m', 'executable');
    git(work, 'push', '--quiet', 'origin', 'main');
    const second = git(work, 'rev-parse', 'HEAD');
    const reader = gitSources({ cacheDir: tempDir('cache'), allowLocalPaths: true });
    const repo = { url: origin.bare, team: TEAM };
    await reader.resolve(repo, 'main');
    const dest = join(tempDir('dest'), 'workspace');
    await reader.checkout(repo, second, dest);
    expect(readdirSync(dest).sort()).toEqual(['notes.md', 'src']);
    expect(readFileSync(join(dest, 'src/main.sh'), 'utf8')).toContain('echo hi');
    expect(statSync(join(dest, 'src/main.sh')).mode & 0o100).toBe(0o100);
    expect(existsSync(join(dest, '.git'))).toBe(false);
    const older = tempDir('dest');
    await reader.checkout(repo, first, older);
    expect(statSync(join(older, 'src/main.sh')).mode & 0o100).toBe(0);
  });

  it('fetches a pinned commit again when the cache was emptied (the cache is disposable)', async () => {
    const origin = testRepository();
    const commit = origin.commit({ 'a.txt': 'kept' });
    const cacheDir = tempDir('cache');
    const reader = gitSources({ cacheDir, allowLocalPaths: true });
    const repo = { url: origin.bare, team: TEAM };
    expect(await reader.resolve(repo, 'main')).toBe(commit);
    rmSync(cacheDir, { recursive: true, force: true });
    expect(await reader.readFile(repo, commit, 'a.txt')).toBe('kept');
    expect(await gitSources({ cacheDir: tempDir('cache'), allowLocalPaths: true }).listFiles(repo, commit, '')).toEqual(['a.txt']);
  });

  it('ends a fetch that outlives its timeout: unreachable, naming the repository', async () => {
    const sockets: Socket[] = [];
    const silent = createServer(() => {}).on('connection', (socket) => sockets.push(socket)); // answers nothing, ever
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/slow.git`;
    try {
      const reader = gitSources({ cacheDir: tempDir('cache'), allowLocalPaths: true, fetchTimeoutMs: 1000 });
      await rejectsWith(
        reader.resolve({ url, team: TEAM, credential: 'secret-token' }, 'main'),
        'unreachable',
        /slow\.git: ref main: git timed out/,
      );
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});
