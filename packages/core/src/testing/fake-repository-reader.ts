import { type RepositoryAccess, RepositoryError, type RepositoryReader } from '../repositories/reader.js';
import type { Store } from '../store/store.js';

/** A repository of the fake: its branches (name → commit) and each commit's files (path → text). */
export interface FakeRepository {
  branches: Record<string, string>;
  commits: Record<string, Record<string, string>>;
  /** When set, every read must carry this credential, else `unauthorized`. */
  credential?: string;
}

/** The fake, with counters a test can assert on (how often it was read). */
export interface FakeRepositoryReader extends RepositoryReader {
  /** The repositories by clone URL; a test may change them (push a commit, move a branch). */
  readonly repositories: Map<string, FakeRepository>;
  /** Calls made, by method. */
  readonly calls: { resolve: number; readFile: number; listFiles: number };
}

/**
 * An in-memory `RepositoryReader` (repositories/reader.ts) for tests: a map of clone URL →
 * branches and commits → files. A branch resolves to its commit as the map says now (so moving
 * it is a push); a full commit SHA resolves to itself.
 */
export function fakeRepositoryReader(repositories: Record<string, FakeRepository> = {}): FakeRepositoryReader {
  const repos = new Map(Object.entries(repositories));
  const calls = { resolve: 0, readFile: 0, listFiles: 0 };
  const open = (access: RepositoryAccess): FakeRepository => {
    const repo = repos.get(access.url);
    if (!repo) throw new RepositoryError('unreachable', `no repository at ${access.url}`);
    if (repo.credential !== undefined && access.credential !== repo.credential) {
      throw new RepositoryError('unauthorized', `${access.url} refused the credential`);
    }
    return repo;
  };
  const filesAt = (repo: FakeRepository, url: string, commit: string) => {
    const files = repo.commits[commit];
    if (!files) throw new RepositoryError('not_found', `${url} has no commit ${commit}`);
    return files;
  };
  return {
    repositories: repos,
    calls,
    async resolve(access, ref) {
      calls.resolve++;
      const repo = open(access);
      const commit = repo.branches[ref] ?? (repo.commits[ref] ? ref : undefined);
      if (commit === undefined) throw new RepositoryError('not_found', `${access.url} has no ref ${ref}`);
      return commit;
    },
    async readFile(access, commit, path) {
      calls.readFile++;
      return filesAt(open(access), access.url, commit)[path];
    },
    async listFiles(access, commit, dir) {
      calls.listFiles++;
      const prefix = dir === '' ? '' : `${dir.replace(/\/+$/, '')}/`;
      return Object.keys(filesAt(open(access), access.url, commit))
        .filter((p) => p.startsWith(prefix))
        .sort();
    },
  };
}

/** The commit every branch of `fakeSkillRepositories` points at. */
export const FAKE_SKILL_COMMIT = 'c0ffee0000000000000000000000000000000000';

/**
 * Repositories holding a well-formed SKILL.md for each skill spec given (`<owner>/<repo>:<name>`
 * or `<owner>/<repo>:<path>/SKILL.md`), at `FAKE_SKILL_COMMIT` of `main`, and a `register` that
 * registers them for a team: for tests whose runs name skills without being about them. The body
 * of skill `x` is `Do x.`, its description `The x skill.`.
 */
export function fakeSkillRepositories(specs: readonly string[]): {
  reader: FakeRepositoryReader;
  register(store: Store, teamUid: string): Promise<void>;
} {
  const files = new Map<string, Record<string, string>>();
  const skillFile = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill.\n---\nDo ${name}.\n`;
  const split = (spec: string) => [spec.slice(0, spec.indexOf(':')), spec.slice(spec.indexOf(':') + 1)] as const;
  // Path forms first, so a name form whose name a path form already gives adds no second file.
  for (const [repo, target] of specs.map(split).sort(([, a], [, b]) => Number(!a.endsWith('SKILL.md')) - Number(!b.endsWith('SKILL.md')))) {
    const tree = files.get(repo) ?? {};
    files.set(repo, tree);
    if (target.endsWith('SKILL.md')) tree[target] = skillFile(target.split('/').at(-2) ?? 'skill');
    else if (!Object.values(tree).includes(skillFile(target))) tree[`skills/${target}/SKILL.md`] = skillFile(target);
  }
  const reader = fakeRepositoryReader(
    Object.fromEntries(
      [...files].map(([repo, tree]) => [
        `file:///fake/${repo}`,
        { branches: { main: FAKE_SKILL_COMMIT }, commits: { [FAKE_SKILL_COMMIT]: tree } },
      ]),
    ),
  );
  return {
    reader,
    async register(store, teamUid) {
      for (const name of files.keys()) {
        await store.repositories.create({
          teamUid,
          name,
          url: `file:///fake/${name}`,
          defaultBranch: 'main',
          credentialSecret: null,
          createdAt: '2026-01-01T00:00:00.000Z',
        });
      }
    },
  };
}
