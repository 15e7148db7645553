import { RepositoryError } from '@agentrun/core';
import { failure } from './git-errors.js';
import type { ResolvedOptions } from './options.js';
import type { CachedRepository, RepositoryCache } from './repository-cache.js';

/**
 * Reads at a commit, straight from the cache's objects (`git cat-file`, `git ls-tree`; no working
 * tree), bounded (docs/repositories.md, "The git layer").
 */

/** Bytes of `ls-tree -z` output allowed per listed file: a path may be 4,096 bytes long (PATH_MAX), plus mode, type and SHA. */
const LISTED_BYTES = 4096 + 96;

/** A file's text, `undefined` when `path` is no file at `commit`; refused past `maxFileBytes` or when not UTF-8. */
export async function readBlob(
  cache: RepositoryCache,
  repository: CachedRepository,
  commit: string,
  path: string,
  options: ResolvedOptions,
): Promise<string | undefined> {
  const what = `${repository.url} at ${commit}: ${path}`;
  // One line on stdin (paths hold no newline: names.ts), one line out: "<sha> <type> <size>" or "<name> missing".
  const check = await cache.read(repository, ['cat-file', '--batch-check'], 4096, `${commit}:${path}\n`);
  if (check.code !== 0) throw failure(check, what, repository.secrets);
  const object = parseBatchCheck(check.stdout);
  if (object?.type !== 'blob') return undefined;
  const { sha, size } = object;
  if (size > options.maxFileBytes) {
    throw new RepositoryError('invalid', `${what} is ${size} bytes, more than the limit of ${options.maxFileBytes}`);
  }
  const blob = await cache.read(repository, ['cat-file', 'blob', sha], options.maxFileBytes);
  if (blob.code !== 0 || blob.overflowed) throw failure(blob, what, repository.secrets);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(blob.stdout);
  } catch {
    throw new RepositoryError('invalid', `${what} is not UTF-8 text`);
  }
}

/** The regular files under `dir` at `commit` (symbolic links and submodules left out), sorted; `[]` when there is no such directory. */
export async function listTree(
  cache: RepositoryCache,
  repository: CachedRepository,
  commit: string,
  dir: string,
  options: ResolvedOptions,
): Promise<string[]> {
  const what = `${repository.url} at ${commit}: ${dir === '' ? 'the root' : dir}`;
  const exists = await cache.read(repository, ['cat-file', '--batch-check'], 4096, `${commit}:${dir}\n`);
  if (exists.code !== 0) throw failure(exists, what, repository.secrets);
  if (parseBatchCheck(exists.stdout)?.type !== 'tree') return [];
  // The subtree itself, not a pathspec: its names are relative to `dir`, and nothing in `dir` is read as a pattern.
  const tree = `${commit}:${dir}`;
  const listing = await cache.read(repository, ['ls-tree', '-r', '-z', tree], options.maxListedFiles * LISTED_BYTES);
  const tooMany = () => new RepositoryError('invalid', `${what} holds more than ${options.maxListedFiles} files, the listing limit`);
  if (listing.overflowed) throw tooMany();
  if (listing.code !== 0) throw failure(listing, what, repository.secrets);
  const files: string[] = [];
  for (const entry of listing.stdout.toString('utf8').split('\0')) {
    // "<mode> <type> <sha>\t<path>"
    const tab = entry.indexOf('\t');
    if (tab < 0) continue;
    const [mode, type] = entry.slice(0, tab).split(' ');
    if (type !== 'blob' || mode === '120000') continue;
    const name = entry.slice(tab + 1);
    files.push(dir === '' ? name : `${dir}/${name}`);
    if (files.length > options.maxListedFiles) throw tooMany();
  }
  return files.sort();
}

/**
 * `cat-file --batch-check`'s answer for an object that exists ("<sha> <type> <size>"), else
 * undefined ("<name> missing", where the name may itself hold spaces and words like `blob`).
 */
function parseBatchCheck(stdout: Buffer): { sha: string; type: string; size: number } | undefined {
  const match = /^([0-9a-f]{40}|[0-9a-f]{64}) (blob|tree|commit|tag) (\d+)$/.exec(stdout.toString('utf8').trim());
  return match === null ? undefined : { sha: match[1] as string, type: match[2] as string, size: Number(match[3]) };
}
