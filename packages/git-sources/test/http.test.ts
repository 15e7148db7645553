import { spawnSync } from 'node:child_process';
import { RepositoryError } from '@agentrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitSources } from '../src/index.js';
import { type HttpGitServer, httpGitServer } from './support/http-git-server.js';
import { recordingGit } from './support/recording-git.js';
import { removeTempDirs, type TestRepository, tempDir, testRepository } from './support/repositories.js';

afterAll(removeTempDirs);

/** The team every read here is for. */
const TEAM = 'team-a';
const TOKEN = 'ghp_theSecretToken123';
const HEADER = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;
const FORBIDDEN = `Basic ${Buffer.from('x-access-token:read-nothing').toString('base64')}`;

const failureOf = (promise: Promise<unknown>): Promise<RepositoryError> =>
  promise.then(
    () => {
      throw new Error('expected a RepositoryError');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(RepositoryError);
      return error as RepositoryError;
    },
  );

describe('gitSources over smart HTTP with a token (git http-backend)', () => {
  let root: string;
  let origin: TestRepository;
  let server: HttpGitServer;
  let url: string;

  beforeAll(async () => {
    root = tempDir('http');
    origin = testRepository(root, 'team');
    server = await httpGitServer(root, HEADER, FORBIDDEN);
    url = `${server.url}/team.git`;
  });
  afterAll(() => server.close());

  it('is refused without the token or with another (unauthorized), served with it, and sees a pushed commit after refresh', async () => {
    const first = origin.commit({ 'skills/a/SKILL.md': '---\nname: a\n---\n' });
    const reader = gitSources({ cacheDir: tempDir('cache') });

    const anonymous = await failureOf(reader.resolve({ url, team: TEAM }, 'main'));
    expect(anonymous.code).toBe('unauthorized');
    expect(anonymous.message).toContain(url);
    expect(anonymous.message).toContain('main');
    const wrong = await failureOf(reader.resolve({ url, team: TEAM, credential: 'not-the-token' }, 'main'));
    expect(wrong.code).toBe('unauthorized');
    expect(wrong.message).not.toContain('not-the-token');

    const forbidden = await failureOf(reader.resolve({ url, team: TEAM, credential: 'read-nothing' }, 'main'));
    expect(forbidden.code).toBe('unauthorized');

    const repo = { url, team: TEAM, credential: TOKEN };
    expect(await reader.resolve(repo, 'main')).toBe(first);
    expect(await reader.readFile(repo, first, 'skills/a/SKILL.md')).toBe('---\nname: a\n---\n');
    const second = origin.commit({ 'skills/b/SKILL.md': '---\nname: b\n---\n' });
    expect(await reader.resolve(repo, 'main')).toBe(first);
    expect(await reader.resolve(repo, 'main', { refresh: true })).toBe(second);
    expect(await reader.listFiles(repo, second, 'skills')).toEqual(['skills/a/SKILL.md', 'skills/b/SKILL.md']);

    const missing = await failureOf(reader.resolve(repo, 'nope'));
    expect(missing.code).toBe('not_found');
    expect(missing.message).toContain('nope');
    const noRepository = await failureOf(reader.resolve({ url: `${server.url}/other.git`, team: TEAM, credential: TOKEN }, 'main'));
    expect(noRepository.code).toBe('not_found');
    expect(noRepository.message).not.toContain(TOKEN);
    // The server only ever saw the one header, or none.
    expect(new Set(server.requests.map((request) => request.authorization))).toEqual(
      new Set([undefined, HEADER, FORBIDDEN, `Basic ${Buffer.from('x-access-token:not-the-token').toString('base64')}`]),
    );
  });

  it('follows no redirect, so the token never reaches the host a server redirects to', async () => {
    origin.commit({ 'moved.txt': 'm' });
    const reader = gitSources({ cacheDir: tempDir('cache') });
    const before = server.requests.length;
    const moved = await failureOf(reader.resolve({ url: `${server.url}/moved/team.git`, team: TEAM, credential: TOKEN }, 'main'));
    expect(moved.message).not.toContain(TOKEN);
    expect(moved.code).toBe('unreachable');
    // One request, the redirected one; nothing reached /team.git on the other host name.
    expect(server.requests.slice(before).map((request) => request.path)).toEqual(['/moved/team.git/info/refs']);
  });

  it('keeps the token out of argv, the URL, the cache and every message (git wrapped to record its calls)', async () => {
    const commit = origin.commit({ 'a.txt': 'a' });
    const recorder = recordingGit();
    const cacheDir = tempDir('cache');
    const reader = gitSources({ cacheDir, gitPath: recorder.gitPath });
    const repo = { url, team: TEAM, credential: TOKEN };
    expect(await reader.resolve(repo, 'main', { refresh: true })).toBe(commit);
    expect(await reader.readFile(repo, commit, 'a.txt')).toBe('a');
    await reader.checkout(repo, commit, tempDir('dest'));
    const error = await failureOf(reader.resolve(repo, 'missing-branch'));
    expect(error.message).not.toContain(TOKEN);
    // The default header is Basic (base64); a host's own `authorization` could put a line break in a header.
    const bearer = gitSources({ cacheDir, authorization: (credential) => `Bearer ${credential}` });
    const broken = await failureOf(bearer.resolve({ url, team: TEAM, credential: 'line\r\nX-Injected: 1' }, 'main'));
    expect(broken.code).toBe('invalid');
    expect(broken.message).not.toContain('X-Injected');
    const calls = recorder.calls();
    expect(calls).toContain(`argv: --git-dir`);
    expect(calls).toContain(url);
    expect(calls).toMatch(/parent: flock .* fetch /);
    // The header reaches git as configuration in the environment: its names are there, never the value in argv.
    expect(calls).toMatch(/env: .*GIT_CONFIG_VALUE_\d/);
    expect(calls).toMatch(/env: .*GIT_TERMINAL_PROMPT/);
    expect(calls).not.toContain(TOKEN);
    expect(calls).not.toContain(Buffer.from(`x-access-token:${TOKEN}`).toString('base64'));
    // Nothing the cache keeps holds it either (config, FETCH_HEAD, logs, packs).
    const grep = spawnSync('grep', ['-rlF', '-e', TOKEN, '-e', HEADER.slice(6), cacheDir], { encoding: 'utf8' });
    expect(grep.stdout).toBe('');
    expect(grep.status).toBe(1); // grep: nothing found (2 would be an error)
  });
});
