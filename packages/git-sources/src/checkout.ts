import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { failure } from './git-errors.js';
import type { CachedRepository, RepositoryCache } from './repository-cache.js';

/**
 * The tree of `commit` written into `destDir` (created when missing; files of the same names
 * overwritten), for an environment's workspace (docs/repositories.md, "The git layer"). A
 * temporary index outside `destDir` and the cache's own files (`GIT_INDEX_FILE`), `read-tree`
 * then `checkout-index`: git's own checkout, which never writes through a symbolic link the
 * tree itself holds. No `.git` is left in `destDir`.
 */
export async function checkoutTree(cache: RepositoryCache, repository: CachedRepository, commit: string, destDir: string): Promise<void> {
  const dest = resolve(destDir);
  await mkdir(dest, { recursive: true });
  const scratch = await cache.scratch();
  try {
    const env = { ...repository.readEnv, GIT_INDEX_FILE: join(scratch, 'index') };
    const what = `${repository.url} at ${commit}: checkout into ${dest}`;
    for (const args of [
      ['read-tree', commit],
      ['checkout-index', '--all', '--force'],
    ]) {
      const result = await cache.read(repository, ['--work-tree', dest, ...args], 64 * 1024, undefined, env);
      if (result.code !== 0) throw failure(result, what, repository.secrets);
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
