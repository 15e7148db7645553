import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ExecutionInput, type ResolvedEnvironment, SecretValue } from '@agentrun/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processExecutor, type WorkspaceRepositories } from '../src/index.js';

// The workspace's preparation, with a git layer the test holds in its hand (docs/repositories.md,
// "The process executor's workspace"): what the executor asks of it, and a clone that is still
// running when the run is cancelled. The end-to-end cases, on real repositories and both stores,
// are in test/hostile/environment-setup.test.ts.

const environment = (over: Partial<ResolvedEnvironment> = {}): ResolvedEnvironment => ({
  id: 'env-1',
  name: 'web',
  repositories: [],
  setup: [],
  variables: {},
  setupTimeoutSeconds: 60,
  ...over,
});

const inputWith = (env: ResolvedEnvironment): ExecutionInput => ({
  run: { run_id: 'r1', prompt: 'go' } as never,
  followups: [],
  attempt: 1,
  readAttachment: async () => undefined,
  environment: env,
});

const contextWith = (signal: AbortSignal, statuses: string[] = []) => ({
  signal,
  report: async (u: { message: string }) => {
    statuses.push(u.message);
  },
  block: async () => {},
  resume: async () => {},
  onFollowup: () => () => {},
});

describe('processExecutor, preparing the workspace', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'agentrun-prepare-test-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('resolves each ref (fetching branches anew, not full SHAs) with the credential revealed, and checks it out into its directory', async () => {
    const calls: unknown[] = [];
    const repositories: WorkspaceRepositories = {
      async resolve(repository, ref, options) {
        calls.push(['resolve', repository, ref, options]);
        return 'c'.repeat(40);
      },
      async checkout(repository, commit, dest) {
        calls.push(['checkout', repository.url, commit, dest.slice(dest.lastIndexOf('/') + 1)]);
        mkdirSync(dest, { recursive: true });
        writeFileSync(join(dest, 'file.txt'), 'x');
      },
    };
    const executor = processExecutor({ command: 'ls web tools', shell: true, workspaceRoot: root, repositories, keepWorkspaces: 'always' });
    const sha = 'a'.repeat(40);
    const outcome = await executor.execute(
      inputWith(
        environment({
          repositories: [
            {
              repository: 'acme/web',
              url: 'https://git.example.com/acme/web.git',
              team: 'team-a',
              credential: new SecretValue('tok'),
              ref: 'main',
              directory: 'web',
            },
            { repository: 'file:///srv/tools.git', url: 'file:///srv/tools.git', team: 'team-a', ref: sha, directory: 'tools' },
          ],
        }),
      ),
      contextWith(new AbortController().signal),
    );
    expect(outcome).toEqual({ status: 'succeeded', message: 'The agent finished' });
    expect(calls).toEqual([
      ['resolve', { url: 'https://git.example.com/acme/web.git', team: 'team-a', credential: 'tok' }, 'main', { refresh: true }],
      ['checkout', 'https://git.example.com/acme/web.git', 'c'.repeat(40), 'web'],
      ['resolve', { url: 'file:///srv/tools.git', team: 'team-a' }, sha, { refresh: false }],
      ['checkout', 'file:///srv/tools.git', 'c'.repeat(40), 'tools'],
    ]);
  });

  it('does not wait for a clone at a cancel, and removes what it writes once it ends', async () => {
    let finishClone: () => void = () => {};
    let started: () => void = () => {};
    const cloneStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const repositories: WorkspaceRepositories = {
      resolve: async () => 'c'.repeat(40),
      checkout: (_repository, _commit, dest) =>
        new Promise<void>((resolve) => {
          started();
          finishClone = () => {
            mkdirSync(dest, { recursive: true });
            writeFileSync(join(dest, 'late.txt'), 'written after the run ended');
            resolve();
          };
        }),
    };
    const executor = processExecutor({ command: 'echo agent', shell: true, workspaceRoot: root, repositories });
    const abort = new AbortController();
    const statuses: string[] = [];
    const running = executor.execute(
      inputWith(
        environment({
          repositories: [{ repository: 'acme/web', url: 'file:///srv/web.git', team: 'team-a', ref: 'main', directory: 'web' }],
        }),
      ),
      contextWith(abort.signal, statuses),
    );
    await cloneStarted;
    abort.abort();
    expect(await running).toEqual({ status: 'failed', message: 'Cancelled' });
    expect(statuses).toContain('Cloning acme/web at main into web');
    expect(readdirSync(root)).toEqual([]);
    // The clone ends after the run: what it wrote goes too.
    finishClone();
    expect(readdirSync(root)).toHaveLength(1);
    await expect.poll(() => readdirSync(root)).toEqual([]);
  });
});
