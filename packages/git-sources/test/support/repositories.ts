import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Real repositories for the tests: a bare one on disk, filled from a working clone beside it. */
export interface TestRepository {
  /** The bare repository (what readers fetch from). */
  bare: string;
  /** Commits `files` on `branch` (created from the current commit when new) and pushes; returns the commit. */
  commit(files: Record<string, string | Uint8Array>, branch?: string): string;
  /** Tags the last commit (annotated when `message` is given) and pushes the tag. */
  tag(name: string, message?: string): void;
}

const gitEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
};

export const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8' }).trim();

const made: string[] = [];

/** A new temporary directory, removed by `removeTempDirs` (each test file's afterAll). */
export const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), `agentrun-git-${prefix}-`));
  made.push(dir);
  return dir;
};

export const removeTempDirs = (): void => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
};

/** A bare repository at `<root>/<name>.git` (or a new temp dir), with `main` as its default branch. */
export function testRepository(root = tempDir('origin'), name = 'repo'): TestRepository {
  const bare = join(root, `${name}.git`);
  const work = join(root, `${name}-work`);
  git(root, 'init', '--quiet', '--bare', '--initial-branch=main', bare);
  git(root, 'init', '--quiet', '--initial-branch=main', work);
  git(work, 'remote', 'add', 'origin', bare);
  return {
    bare,
    commit(files, branch = 'main') {
      const current = execFileSync('git', ['branch', '--show-current'], { cwd: work, env: gitEnv, encoding: 'utf8' }).trim();
      if (current !== branch) {
        const exists = git(work, 'branch', '--list', branch) !== '';
        git(work, 'checkout', '--quiet', ...(exists ? [branch] : ['-b', branch]));
      }
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(work, path)), { recursive: true });
        writeFileSync(join(work, path), text);
      }
      git(work, 'add', '--all');
      git(work, 'commit', '--quiet', '--allow-empty', '-m', `commit on ${branch}`);
      git(work, 'push', '--quiet', 'origin', branch);
      return git(work, 'rev-parse', 'HEAD');
    },
    tag(name, message) {
      git(work, 'tag', ...(message === undefined ? [name] : ['-a', name, '-m', message]));
      git(work, 'push', '--quiet', 'origin', name);
    },
  };
}
