import { createHash } from 'node:crypto';
import { access as exists, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type RepositoryAccess, RepositoryError } from '@agentrun/core';
import { prepareCacheDir, prepareCacheDirSync } from './cache-dir.js';
import { gitEnvironment } from './git-environment.js';
import { failure } from './git-errors.js';
import { type GitResult, runGit } from './git-process.js';
import type { ResolvedOptions } from './options.js';
import { checkRepositoryUrl } from './repository-url.js';

/** One repository's place in the cache, and how to speak to it. */
export interface CachedRepository {
  url: string;
  /** The team it is read for: its entry is that team's alone. */
  team: string;
  /** The bare repository. */
  dir: string;
  /** The secrets to keep out of every message: the credential and its header value. */
  secrets: string[];
  /** The environment of a fetch (with the credential) and of a local read (without). */
  fetchEnv: NodeJS.ProcessEnv;
  readEnv: NodeJS.ProcessEnv;
}

/**
 * The cache (docs/repositories.md, "The cache"): under `cacheDir`, one bare repository per team and
 * URL, named by the SHA-256 of both, so that one team's registration never reads what was fetched
 * for another's (with its credential). Created by `git init --bare` and filled by `git fetch` of
 * the refs asked for. Fetches into one repository are serialized: in this process by a queue, and
 * across processes by a lock file held with flock(1) for the fetch. Reads need no lock (git's
 * objects are immutable and its refs are updated atomically).
 */
export class RepositoryCache {
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Fetches queued and not started yet, by repository and refspecs: a caller asking for the same joins the queued one. */
  private readonly waiting = new Map<string, Promise<void>>();

  /** The cache directory is checked when the reader is made, so a wrong one stops a server at its start. */
  constructor(private readonly options: ResolvedOptions) {
    prepareCacheDirSync(options.cacheDir);
  }

  /** Whether git may be given `url` (repository-url.ts decides, with this cache's policy). */
  checkUrl(url: string): Promise<string> {
    return checkRepositoryUrl(url, { allowLocalPaths: this.options.allowLocalPaths, cacheDir: this.options.cacheDir });
  }

  /** The repository's cache entry for its team, created (empty) when missing. */
  async open(access: RepositoryAccess): Promise<CachedRepository> {
    // A caller in plain JavaScript may leave the team out: then there is no entry to read, rather than a shared one.
    const team: unknown = access.team;
    if (typeof team !== 'string' || team === '')
      throw new RepositoryError('invalid', 'a repository is read for a team: its access names none');
    const url = await this.checkUrl(access.url);
    const home = await this.home();
    const key = createHash('sha256')
      .update(JSON.stringify([team, url]))
      .digest('hex');
    const dir = join(this.options.cacheDir, `${key.slice(0, 40)}.git`);
    const authorization = access.credential === undefined ? undefined : this.options.authorization(access.credential);
    // A header value with a line break would forge further headers; the value itself is never told.
    if (authorization !== undefined && /[\u0000-\u001f\u007f]/.test(authorization)) {
      throw new RepositoryError('invalid', `the credential for ${url} holds a control character`);
    }
    const secrets = [access.credential ?? '', authorization ?? ''];
    const local = this.options.allowLocalPaths;
    const repository = {
      url,
      team,
      dir,
      secrets,
      fetchEnv: gitEnvironment(home, authorization, local),
      readEnv: gitEnvironment(home, undefined, local),
    };
    // A stat per call: the cache is disposable, and one removed under a running server is made anew.
    await exists(join(dir, 'HEAD')).catch(() => this.create(repository));
    return repository;
  }

  /** `git fetch` of the given refspecs, one at a time per repository (in this process and across processes). */
  fetch(repository: CachedRepository, refspecs: string[], what: string): Promise<void> {
    // The same fetch queued and not started yet starts after this call, so it sees at least as new a state: join it.
    // Keyed by the credential too, so a caller never rides on another credential's fetch.
    const key = JSON.stringify([repository.dir, refspecs, repository.secrets]);
    const queued = this.waiting.get(key);
    if (queued !== undefined) return queued;
    const previous = this.queues.get(repository.dir) ?? Promise.resolve();
    const next = previous.then(async () => {
      if (this.waiting.get(key) === next) this.waiting.delete(key);
      const result = await runGit({
        gitPath: this.options.gitPath,
        args: ['--git-dir', repository.dir, 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', repository.url, ...refspecs],
        env: repository.fetchEnv,
        timeoutMs: this.options.fetchTimeoutMs,
        maxStdoutBytes: 64 * 1024,
        lockFile: `${repository.dir}.lock`,
      });
      if (result.code !== 0) throw failure(result, what, repository.secrets);
    });
    this.waiting.set(key, next);
    const settled = next.catch(() => {});
    this.queues.set(repository.dir, settled);
    void settled.then(() => {
      if (this.queues.get(repository.dir) === settled) this.queues.delete(repository.dir);
    });
    return next;
  }

  /** A local git call on the cached repository (a read: no credential, no lock). */
  read(repository: CachedRepository, args: string[], maxStdoutBytes: number, stdin?: string, env?: NodeJS.ProcessEnv): Promise<GitResult> {
    return runGit({
      gitPath: this.options.gitPath,
      args: ['--git-dir', repository.dir, ...args],
      env: env ?? repository.readEnv,
      timeoutMs: this.options.readTimeoutMs,
      maxStdoutBytes,
      ...(stdin === undefined ? {} : { stdin }),
    });
  }

  /** A scratch directory inside the cache (for a checkout's temporary index). */
  async scratch(): Promise<string> {
    await this.home();
    return mkdtemp(join(this.options.cacheDir, '.tmp-'));
  }

  /**
   * The empty `HOME` of every git call (no user configuration to read), made again on each call
   * (one mkdir) so that a cache directory removed whole while the server runs is made anew.
   */
  private async home(): Promise<string> {
    await prepareCacheDir(this.options.cacheDir);
    const home = join(this.options.cacheDir, '.home');
    await mkdir(home, { recursive: true, mode: 0o700 });
    return home;
  }

  /**
   * `git init --bare` in a scratch directory renamed into place: a rename is atomic, so two
   * processes creating one repository at once both end with the same, whole one.
   */
  private async create(repository: CachedRepository): Promise<void> {
    const scratch = await mkdtemp(join(this.options.cacheDir, '.new-'));
    try {
      const result = await runGit({
        gitPath: this.options.gitPath,
        args: ['init', '--quiet', '--bare', scratch],
        env: repository.readEnv,
        timeoutMs: this.options.readTimeoutMs,
        maxStdoutBytes: 64 * 1024,
      });
      if (result.code !== 0) throw failure(result, `could not create the cache of ${repository.url}`, repository.secrets);
      // For a person looking into the cache: which URL this is, and for which team (never a credential).
      await writeFile(join(scratch, 'agentrun-url'), `${repository.url}\nteam ${repository.team}\n`);
      await rename(scratch, repository.dir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
}
