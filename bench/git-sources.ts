import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitSources } from '@agentrun/git-sources';
import type { BenchGroup } from './run.js';

/**
 * `npm run bench -- git`: @agentrun/git-sources on a local bare repository of 200 skill files
 * (docs/repositories.md, "The git layer"): a first resolve (init and fetch), a cached one, a
 * refresh with nothing new, a read, a listing and a checkout, each the mean of a few, in ms.
 */
const FILES = 200;

function bareRepository(root: string): { url: string; commit: string } {
  const env = {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'b',
    GIT_AUTHOR_EMAIL: 'b@example.com',
    GIT_COMMITTER_NAME: 'b',
    GIT_COMMITTER_EMAIL: 'b@example.com',
  };
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, encoding: 'utf8' }).trim();
  const work = join(root, 'work');
  git(root, 'init', '--quiet', '--initial-branch=main', work);
  for (let i = 0; i < FILES; i++) {
    mkdirSync(join(work, 'skills', `s${i}`), { recursive: true });
    writeFileSync(join(work, 'skills', `s${i}`, 'SKILL.md'), `---\nname: s${i}\ndescription: skill ${i}\n---\n${'x'.repeat(500)}\n`);
  }
  git(work, 'add', '--all');
  git(work, 'commit', '--quiet', '-m', 'skills');
  git(root, 'clone', '--quiet', '--bare', work, join(root, 'repo.git'));
  return { url: join(root, 'repo.git'), commit: git(work, 'rev-parse', 'HEAD') };
}

async function mean(times: number, work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < times; i++) await work();
  return (performance.now() - started) / times;
}

export const gitSourcesGroup: BenchGroup = {
  name: 'git',
  description: `git-sources on a local bare repository of ${FILES} files (ms per call)`,
  async run() {
    const root = mkdtempSync(join(tmpdir(), 'agentrun-bench-git-'));
    try {
      const { url, commit } = bareRepository(root);
      const reader = gitSources({ cacheDir: join(root, 'cache'), allowLocalPaths: true });
      const repo = { url, team: 'bench' };
      return {
        'git.resolve_first_ms': await mean(1, () => reader.resolve(repo, 'main')),
        'git.resolve_cached_ms': await mean(20, () => reader.resolve(repo, 'main')),
        'git.resolve_refresh_ms': await mean(10, () => reader.resolve(repo, 'main', { refresh: true })),
        'git.read_file_ms': await mean(20, () => reader.readFile(repo, commit, 'skills/s7/SKILL.md')),
        'git.list_files_ms': await mean(20, () => reader.listFiles(repo, commit, '')),
        'git.checkout_ms': await mean(5, () => reader.checkout(repo, commit, mkdtempSync(join(root, 'dest-')))),
      };
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
};
