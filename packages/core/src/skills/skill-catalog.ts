import type { SecretCipher } from '../control/secret-cipher.js';
import { secretSlot } from '../control/secret-cipher.js';
import { invalidRequest } from '../errors.js';
import { type RepositoryAccess, RepositoryError, type RepositoryReader } from '../repositories/reader.js';
import type { RepositoryRecord } from '../repositories/records.js';
import type { Store } from '../store/store.js';
import { type Clock, systemClock } from '../util/clock.js';
import { parseSkillFile, type SkillFile } from './skill-file.js';

/** One SKILL.md of a repository at a commit: its skill, or why it is malformed. */
export interface SkillEntry {
  /** `<owner>/<repo>`, as registered. */
  repository: string;
  commit: string;
  /** The file's path in the repository (`skills/deploy/SKILL.md`). */
  path: string;
  skill?: SkillFile;
  error?: string;
}

/** Files named SKILL.md read per repository commit, at most: a bigger repository is cut off there (docs/repositories.md). */
const MAX_SKILL_FILES = 200;
/** Repository commits whose skills are kept in memory (least recently used first out). */
const CACHE_ENTRIES = 256;
/** Branches whose commit is remembered (least recently checked first out). */
const HEAD_ENTRIES = 1024;
/** How long a branch's commit is trusted before the repository is asked again, by default. */
export const DEFAULT_SKILL_REFRESH_MS = 60_000;

export interface SkillCatalogOptions {
  clock?: Clock;
  /** How long a branch's commit is trusted before the reader fetches it again (docs/repositories.md, "Caching"). */
  refreshMs?: number;
  /** Hears a fetch that failed while an earlier commit could still be used. */
  onError?: (error: unknown) => void;
}

interface BranchHead {
  commit: string;
  checkedAt: number;
}

/**
 * The skills of a team's registered repositories (docs/repositories.md, "Skills"), read through
 * the `RepositoryReader` port: at a repository's default branch, every file named `SKILL.md`
 * anywhere in the tree, parsed once per repository commit and cached, so a listing or a run
 * reads a repository again only when its branch moved. The branch itself is fetched at most once
 * per `refreshMs` (and by `GET /agent?refresh=true`): in between, resolving a skill asks no
 * repository, which keeps the webhook ingress off git.
 */
export class SkillCatalog {
  private readonly cache = new Map<string, SkillEntry[]>();
  /** Each branch's commit as last fetched, so most resolutions ask no repository (and spawn no git). */
  private readonly heads = new Map<string, BranchHead>();
  /** The fetch of a branch under way: concurrent resolutions share it. */
  private readonly fetching = new Map<string, Promise<string>>();
  private readonly clock: Clock;
  private readonly refreshMs: number;
  private readonly onError: (error: unknown) => void;

  constructor(
    readonly store: Store,
    private readonly cipher: SecretCipher,
    private readonly reader: RepositoryReader | undefined,
    options: SkillCatalogOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.refreshMs = options.refreshMs ?? DEFAULT_SKILL_REFRESH_MS;
    this.onError = options.onError ?? (() => {});
  }

  /** Whether skills can be read at all: `createAgentRun` was given a `repositories` reader. */
  get enabled(): boolean {
    return this.reader !== undefined;
  }

  /** The skills of one registered repository at its default branch's current commit. */
  async entries(repo: RepositoryRecord, options: { refresh?: boolean } = {}): Promise<SkillEntry[]> {
    const reader = this.requireReader(repo.name);
    const commit = await this.head(reader, repo, options.refresh === true);
    const key = `${repo.teamUid}\u0000${repo.name}\u0000${repo.url}\u0000${commit}`;
    const cached = this.cache.get(key);
    if (cached && !options.refresh) {
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    const access = await this.access(repo);
    const paths = (await reader.listFiles(access, commit, '')).filter(isSkillFile).slice(0, MAX_SKILL_FILES);
    const entries: SkillEntry[] = [];
    for (const path of paths) entries.push(entryOf(repo.name, commit, path, await reader.readFile(access, commit, path)));
    this.cache.set(key, entries);
    if (this.cache.size > CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
    return entries;
  }

  /**
   * The commit the repository's default branch names: remembered for `refreshMs` after it was
   * fetched, then fetched again (`refresh` fetches now). A fetch that fails while an earlier commit
   * is known keeps that one (for another window) and tells `onError`; with none known, the
   * reader's own cache answers, else the failure is the caller's.
   */
  private async head(reader: RepositoryReader, repo: RepositoryRecord, refresh: boolean): Promise<string> {
    const key = `${repo.teamUid}\u0000${repo.name}\u0000${repo.url}\u0000${repo.defaultBranch}`;
    const known = this.heads.get(key);
    if (!refresh && known && this.clock.now() - known.checkedAt < this.refreshMs) return known.commit;
    const under = this.fetching.get(key);
    if (under) return under;
    const fetched = this.fetchHead(reader, repo, known).then((commit) => {
      this.heads.delete(key);
      this.heads.set(key, { commit, checkedAt: this.clock.now() });
      if (this.heads.size > HEAD_ENTRIES) this.heads.delete(this.heads.keys().next().value as string);
      return commit;
    });
    this.fetching.set(key, fetched);
    try {
      return await fetched;
    } finally {
      this.fetching.delete(key);
    }
  }

  private async fetchHead(reader: RepositoryReader, repo: RepositoryRecord, known: BranchHead | undefined): Promise<string> {
    const access = await this.access(repo);
    try {
      return await reader.resolve(access, repo.defaultBranch, { refresh: true });
    } catch (error) {
      if (!(error instanceof RepositoryError) || error.code !== 'unreachable') throw error;
      this.onError(error);
      return known?.commit ?? (await reader.resolve(access, repo.defaultBranch));
    }
  }

  /** The read access of a repository: its URL and team, and its credential secret's value opened for this read. */
  async access(repo: RepositoryRecord): Promise<RepositoryAccess> {
    const base = { url: repo.url, team: repo.teamUid };
    if (repo.credentialSecret === null) return base;
    const secret = await this.store.secrets.get(repo.teamUid, repo.credentialSecret);
    if (!secret) throw new RepositoryError('unauthorized', `its credential secret ${repo.credentialSecret} does not exist`);
    return { ...base, credential: await this.cipher.open(secret.ciphertext, secretSlot(repo.teamUid, repo.credentialSecret)) };
  }

  /**
   * Why the reader refuses to ever read `url` (docs/repositories.md, "URLs"), or `undefined`: a
   * registration or an environment naming it is refused when saved. No reader, or one without
   * `checkUrl`, refuses nothing here.
   */
  async urlRefusal(url: string): Promise<string | undefined> {
    try {
      await this.reader?.checkUrl?.(url);
      return undefined;
    } catch (error) {
      if (error instanceof RepositoryError && error.code === 'invalid') return error.message;
      throw error;
    }
  }

  /** The reader, or a 400 saying this agentrun has none (repository `name` cannot be read). */
  requireReader(name: string): RepositoryReader {
    if (!this.reader) {
      throw invalidRequest(
        `repository ${name} cannot be read: this agentrun has no repository reader (createAgentRun's repositories option, docs/repositories.md)`,
      );
    }
    return this.reader;
  }
}

const isSkillFile = (path: string) => path === 'SKILL.md' || path.endsWith('/SKILL.md');

function entryOf(repository: string, commit: string, path: string, text: string | undefined): SkillEntry {
  if (text === undefined) return { repository, commit, path, error: 'the file could not be read' };
  const parsed = parseSkillFile(text);
  return parsed.ok ? { repository, commit, path, skill: parsed.skill } : { repository, commit, path, error: parsed.error };
}
