import { createHash } from 'node:crypto';
import { type RepositoryAccess, RepositoryError, type RepositoryReader } from '@agentrun/core';
import { checkoutTree } from './checkout.js';
import { checkCommit, checkPath, checkRef, isCommit } from './names.js';
import { type GitSourcesOptions, resolveOptions } from './options.js';
import { listTree, readBlob } from './reads.js';
import { type CachedRepository, RepositoryCache } from './repository-cache.js';

/** The `RepositoryReader` over git, and a checkout for environments. */
export interface GitSources extends RepositoryReader {
  /** Refuses (`invalid`) a URL this reader never reads: see `checkRepositoryUrl`, with this reader's options. */
  checkUrl(url: string): Promise<void>;
  /** Writes the files of `commit` into `destDir` (created when missing), without a `.git`. */
  checkout(repository: RepositoryAccess, commit: string, destDir: string): Promise<void>;
}

/**
 * Where fetched refs are kept in the cache: `refs/cached/refs/<SHA-256 of the ref as asked>` (a
 * flat name: `feature` and `feature/x`, or a tag and a branch path, never collide as files), and
 * `refs/cached/commits/<sha>` for commits fetched by SHA.
 */
const CACHED = 'refs/cached';
const cachedRef = (ref: string): string => `${CACHED}/refs/${createHash('sha256').update(ref).digest('hex')}`;

/**
 * core's `RepositoryReader` over the `git` program, with a local cache of each repository
 * (packages/git-sources/README.md; docs/repositories.md, "The git layer").
 */
export function gitSources(options: GitSourcesOptions = {}): GitSources {
  const resolved = resolveOptions(options);
  const cache = new RepositoryCache(resolved);

  /** The commit a cached ref names, or undefined. */
  const cachedCommit = async (repository: CachedRepository, name: string): Promise<string | undefined> => {
    const result = await cache.read(repository, ['rev-parse', '--verify', '--quiet', `${name}^{commit}`], 4096);
    return result.code === 0 ? result.stdout.toString('utf8').trim() : undefined;
  };

  /** Makes sure the cache holds `commit` (fetching it by SHA when not: a cache may have been emptied). */
  const ensureCommit = async (repository: CachedRepository, commit: string): Promise<void> => {
    if ((await cachedCommit(repository, commit)) === commit) return;
    await cache.fetch(repository, [`+${commit}:${CACHED}/commits/${commit}`], `${repository.url}: commit ${commit}`);
    if ((await cachedCommit(repository, commit)) !== commit) {
      throw new RepositoryError('not_found', `${repository.url}: no commit ${commit}`);
    }
  };

  return {
    async checkUrl(url) {
      await cache.checkUrl(url);
    },

    async resolve(access, ref, { refresh = false } = {}) {
      const repository = await cache.open(access);
      checkRef(ref);
      if (isCommit(ref)) {
        await ensureCommit(repository, ref);
        return ref;
      }
      const local = cachedRef(ref);
      if (!refresh) {
        const known = await cachedCommit(repository, local);
        if (known !== undefined) return known;
      }
      await cache.fetch(repository, [`+${ref}:${local}`], `${repository.url}: ref ${ref}`);
      const commit = await cachedCommit(repository, local);
      if (commit === undefined) throw new RepositoryError('not_found', `${repository.url}: ref ${ref} names no commit`);
      return commit;
    },

    async readFile(access, commit, path) {
      const repository = await cache.open(access);
      const file = checkPath(path, false);
      await ensureCommit(repository, checkCommit(commit));
      return readBlob(cache, repository, commit, file, resolved);
    },

    async listFiles(access, commit, dir) {
      const repository = await cache.open(access);
      const under = checkPath(dir, true);
      await ensureCommit(repository, checkCommit(commit));
      return listTree(cache, repository, commit, under, resolved);
    },

    async checkout(access, commit, destDir) {
      const repository = await cache.open(access);
      await ensureCommit(repository, checkCommit(commit));
      await checkoutTree(cache, repository, commit, destDir);
    },
  };
}
