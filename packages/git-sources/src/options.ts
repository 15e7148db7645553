import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How `gitSources` reads repositories (packages/git-sources/README.md; docs/repositories.md, "The git layer"). */
export interface GitSourcesOptions {
  /**
   * Where the cache lives: one bare repository per URL. Disposable (nothing to back up); processes
   * of one host may share it. Default: `<os tmpdir>/agentrun-git-cache`.
   */
  cacheDir?: string;
  /** The `git` program (a path, or a name on `PATH`). Default `git`. */
  gitPath?: string;
  /** Largest file `readFile` returns; a larger one is refused (`invalid`). Default 1 MiB. */
  maxFileBytes?: number;
  /** Most files `listFiles` returns; a directory with more is refused (`invalid`). Default 10,000. */
  maxListedFiles?: number;
  /** Timeout of one fetch (clone or update), in ms. Default 120,000. */
  fetchTimeoutMs?: number;
  /** Timeout of one local git call (a read, a checkout), in ms. Default 30,000. */
  readTimeoutMs?: number;
  /**
   * The `Authorization` header's value for a credential. Default: Basic with the user name
   * `x-access-token` and the credential as password, which GitHub and GitLab accept for tokens.
   */
  authorization?: (credential: string) => string;
}

/** The options with their defaults filled in. */
export interface ResolvedOptions {
  cacheDir: string;
  gitPath: string;
  maxFileBytes: number;
  maxListedFiles: number;
  fetchTimeoutMs: number;
  readTimeoutMs: number;
  authorization: (credential: string) => string;
}

const basicToken = (credential: string): string => `Basic ${Buffer.from(`x-access-token:${credential}`).toString('base64')}`;

export function resolveOptions(options: GitSourcesOptions): ResolvedOptions {
  return {
    cacheDir: options.cacheDir ?? join(tmpdir(), 'agentrun-git-cache'),
    gitPath: options.gitPath ?? 'git',
    maxFileBytes: options.maxFileBytes ?? 1024 * 1024,
    maxListedFiles: options.maxListedFiles ?? 10_000,
    fetchTimeoutMs: options.fetchTimeoutMs ?? 120_000,
    readTimeoutMs: options.readTimeoutMs ?? 30_000,
    authorization: options.authorization ?? basicToken,
  };
}
