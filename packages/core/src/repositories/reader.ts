/**
 * How core reads source repositories (docs/repositories.md): skills, factory
 * definitions and environments live in git repositories a team registers. Core is pure TypeScript,
 * so it reads them through this port; `@agentrun/git-sources` implements it over the `git`
 * program with a local cache of each repository, and tests may pass a fake.
 *
 * A repository is named by its clone URL; a credential, when the repository needs one, is the
 * value of a team secret, opened by core and handed over per call (never stored by the reader,
 * never in a URL or a log line). Every read names a commit (a full SHA): what was resolved once
 * reads the same forever, so a run can be pinned to the commit that resolved its skill.
 */
export interface RepositoryReader {
  /**
   * Refuses (`RepositoryError` `invalid`) a repository URL this reader will never read, so that a
   * registration or an environment naming it is a 400 when it is saved, not a failure at its first
   * read (docs/repositories.md, "URLs"). The reads refuse such a URL again. Optional: without it,
   * any URL of the API's forms is saved.
   */
  checkUrl?(url: string): Promise<void>;
  /**
   * The commit `ref` (a branch, a tag or a full SHA) names. Fetches first when the cache does not
   * know the ref yet, or when `refresh` asks; else answers from the cache. Throws
   * `RepositoryError` (`not_found` for an unknown ref).
   */
  resolve(repository: RepositoryAccess, ref: string, options?: { refresh?: boolean }): Promise<string>;
  /**
   * A file's text (UTF-8) at `commit`, or `undefined` when there is no such file (a directory is
   * none). A file past the reader's size limit, or not UTF-8, throws `invalid`.
   */
  readFile(repository: RepositoryAccess, commit: string, path: string): Promise<string | undefined>;
  /**
   * The paths (from the root) of the regular files under `dir` (`''` for the root) at `commit`,
   * recursively, sorted; `[]` when `dir` is no directory. More files than the reader's limit throws `invalid`.
   */
  listFiles(repository: RepositoryAccess, commit: string, dir: string): Promise<string[]>;
}

/** A repository as a read needs it. */
export interface RepositoryAccess {
  /** The clone URL: `https://…`, `http://…` (tests, local servers); `file://…` or an absolute path where the reader allows local paths. */
  url: string;
  /**
   * The team the repository is read for (the registration's or the environment's owner). A reader
   * that caches keeps each team's reads apart: one team's registration never reads what was
   * fetched for another's (docs/repositories.md, "The cache").
   */
  team: string;
  /** A read credential (a token), sent as HTTP authorization; absent for public or local repositories. */
  credential?: string;
}

/** Why a read failed, for a clear 400/404/503 (docs/run-api.md, "Errors"). */
export type RepositoryErrorCode = 'not_found' | 'unreachable' | 'unauthorized' | 'invalid';

export class RepositoryError extends Error {
  constructor(
    readonly code: RepositoryErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'RepositoryError';
  }
}
