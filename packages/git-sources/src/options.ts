import { defaultCacheDir } from './cache-dir.js';

/** How `gitSources` reads repositories (packages/git-sources/README.md; docs/repositories.md, "The git layer"). */
export interface GitSourcesOptions {
  /**
   * Where the cache lives: one bare repository per team and URL. Disposable (nothing to back up);
   * processes of one host and user may share it. It must belong to the server's user and be
   * writable by no one else (an Error otherwise); a missing one is made with mode 0700. Default:
   * `$XDG_CACHE_HOME/agentrun/git`, else `~/.cache/agentrun/git` (docs/repositories.md, "The cache").
   */
  cacheDir?: string;
  /**
   * Whether repositories may be read from this host's disk: absolute paths and `file://` URLs.
   * Default false: only `https://` and `http://` URLs are read, so no caller names a path on the
   * server. A path into `cacheDir` is refused even when true (docs/repositories.md, "URLs").
   */
  allowLocalPaths?: boolean;
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
  allowLocalPaths: boolean;
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
    cacheDir: options.cacheDir ?? defaultCacheDir(),
    allowLocalPaths: options.allowLocalPaths === true,
    gitPath: options.gitPath ?? 'git',
    maxFileBytes: options.maxFileBytes ?? 1024 * 1024,
    maxListedFiles: options.maxListedFiles ?? 10_000,
    fetchTimeoutMs: options.fetchTimeoutMs ?? 120_000,
    readTimeoutMs: options.readTimeoutMs ?? 30_000,
    authorization: options.authorization ?? basicToken,
  };
}
