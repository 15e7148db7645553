import { describe, expect, it } from 'vitest';
import { type RepositoryAccess, RepositoryError } from '../src/index.js';
import { fakeRepositoryReader } from '../src/testing/index.js';
import { expectProblem, setup } from './helpers.js';

// The reader decides which repository URLs it reads (docs/repositories.md, "URLs"): core asks it
// when a repository is registered and when an environment naming a clone URL is saved or applied,
// and answers a refusal as a 400 at the field, writing nothing. Every read names the team.

const REMOTE = 'https://git.example.com/acme/skills.git';
const SHA = 'c0ffee0000000000000000000000000000000000';

function readerWithPolicy() {
  const fake = fakeRepositoryReader({
    [REMOTE]: { branches: { main: SHA }, commits: { [SHA]: { 'review/SKILL.md': '---\nname: review\n---\nReview it.\n' } } },
  });
  const accesses: RepositoryAccess[] = [];
  const reader = {
    ...fake,
    async checkUrl(url: string) {
      if (!url.startsWith('https://'))
        throw new RepositoryError('invalid', `repository URL ${JSON.stringify(url)} is refused: remote only`);
    },
    async resolve(access: RepositoryAccess, ref: string) {
      accesses.push(access);
      return fake.resolve(access, ref);
    },
  };
  return { reader, accesses };
}

describe('repository URLs the reader refuses', () => {
  it('refuses them at registration, at an environment save and at an apply, each at its path, and stores nothing', async () => {
    const { reader } = readerWithPolicy();
    const h = await setup({ repositories: reader });
    for (const url of ['/srv/git/skills.git', 'file:///srv/git/skills.git']) {
      const problem = await expectProblem(
        await h.call('POST', '/repositories', { body: { name: 'acme/local', url } }),
        400,
        'invalid_request',
      );
      expect(problem.detail).toBe(`invalid repository: url: repository URL ${JSON.stringify(url)} is refused: remote only`);
      expect(problem.errors).toEqual([{ path: 'url', detail: `repository URL ${JSON.stringify(url)} is refused: remote only` }]);
    }
    expect(await h.json('GET', '/repositories')).toMatchObject({ status: 200, body: { repositories: [] } });

    const environment = { name: 'web', repositories: [{ repository: REMOTE }, { repository: 'file:///srv/git/web.git' }] };
    const saved = await expectProblem(await h.call('POST', '/environments', { body: environment }), 400, 'invalid_request');
    expect(saved.errors).toEqual([{ path: 'repositories.1.repository', detail: expect.stringContaining('is refused: remote only') }]);
    expect(await h.json('GET', '/environments')).toMatchObject({ status: 200, body: { environments: [] } });

    const factory = (await h.json<{ uid: string }>('POST', '/factories', { body: { name: 'f' } })).body.uid;
    const applied = await expectProblem(
      await h.call('POST', `/factories/${factory}/apply`, {
        body: { environments: [{ name: 'web', repositories: [{ repository: 'file:///srv/git/web.git' }] }] },
      }),
      400,
      'invalid_request',
    );
    expect(applied.errors).toEqual([{ path: 'environments.0.repositories.0.repository', detail: expect.stringContaining('remote only') }]);
    expect(await h.json('GET', '/environments')).toMatchObject({ status: 200, body: { environments: [] } });
  });

  it('names the registration’s team on every read', async () => {
    const { reader, accesses } = readerWithPolicy();
    const h = await setup({ repositories: reader });
    expect((await h.json('POST', '/repositories', { body: { name: 'acme/skills', url: REMOTE } })).status).toBe(201);
    expect((await h.json('GET', '/agent?repo=acme/skills')).status).toBe(200);
    expect(accesses.map((a) => a.team)).toEqual([h.principal.team_uid]);
  });
});
