import { RepositoryError } from '@agentrun/core';

/**
 * What refs, commits and paths a caller may name (docs/repositories.md, "The git layer"). They
 * reach git as arguments or on its stdin, so anything that could read as an option, a revision
 * expression (`main~1`, `@{-1}`, `:/text`) or a second line is refused before git sees it.
 */

const COMMIT = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** A full commit SHA (SHA-1, or SHA-256 for such repositories). */
export const isCommit = (ref: string): boolean => COMMIT.test(ref);

export function checkCommit(commit: string): string {
  if (!isCommit(commit)) throw new RepositoryError('invalid', `${JSON.stringify(commit.slice(0, 80))} is not a full commit SHA`);
  return commit;
}

/** A branch, a tag (short or as `refs/…`) or a full SHA. */
export function checkRef(ref: string): string {
  const ok =
    ref.length > 0 &&
    ref.length <= 255 &&
    /^[A-Za-z0-9._/-]+$/.test(ref) &&
    !ref.startsWith('-') &&
    !ref.includes('..') &&
    !ref.includes('//') &&
    !ref.endsWith('/') &&
    !ref.endsWith('.') &&
    !ref.endsWith('.lock') &&
    !ref.split('/').some((part) => part.startsWith('.'));
  if (!ok) throw new RepositoryError('invalid', `${JSON.stringify(ref.slice(0, 80))} is not a branch, tag or commit name`);
  return ref;
}

/**
 * A path inside the repository, as `a/b/c` (no leading or trailing `/`, no `.` or `..` part, no
 * control character); `''` is the root where `allowRoot`.
 */
export function checkPath(path: string, allowRoot: boolean): string {
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  if (trimmed === '' && allowRoot) return '';
  const ok =
    trimmed.length > 0 &&
    trimmed.length <= 4096 &&
    !/[\u0000-\u001f\u007f]/.test(trimmed) &&
    trimmed.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
  if (!ok) throw new RepositoryError('invalid', `${JSON.stringify(path.slice(0, 200))} is not a path inside the repository`);
  return trimmed;
}
