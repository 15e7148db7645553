import { type FakeRepositoryReader, fakeRepositoryReader } from '@agentrun/core/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RunItem } from '../src/models/run.js';
import { DEFAULT_SKILL_REFRESH_MS } from '../src/skills/skill-catalog.js';
import { expectProblem, type Harness, manualClock, setup } from './helpers.js';

// Skills from a team's registered repositories (docs/repositories.md, "Skills"), through the HTTP
// surface with the fake reader: the API and the webhook ingress resolve them alike, an
// unresolvable one is a 400 wherever it is named, and GET /agent lists them.

const KEY = Buffer.alloc(32, 3).toString('base64');
const ORIGIN = 'http://agentrun.test';
const C1 = '1111111111111111111111111111111111111111';
const C2 = '2222222222222222222222222222222222222222';

const DEPLOY = '---\nname: deploy\ndescription: Ship the service.\n---\n\n# Deploy\n\nRun the release checklist.\n';
const TRIAGE = '---\nname: triage\ndescription: "Sort issues: label, assign."\n---\nLabel every issue.\n';

function repos(): Record<
  string,
  { branches: Record<string, string>; commits: Record<string, Record<string, string>>; credential?: string }
> {
  return {
    'https://git.example.com/acme/skills.git': {
      branches: { main: C1 },
      commits: {
        [C1]: {
          'README.md': '# skills',
          'skills/deploy/SKILL.md': DEPLOY,
          '.claude/skills/triage/SKILL.md': TRIAGE,
          'skills/broken/SKILL.md': 'no front matter here',
          'skills/badyaml/SKILL.md': '---\nname: [unclosed\n---\nbody',
          'skills/noname/SKILL.md': '---\ndescription: nameless\n---\nbody',
        },
      },
    },
    'https://git.example.com/acme/private.git': {
      credential: 'tok-123',
      branches: { trunk: C2 },
      commits: { [C2]: { 'ops/audit/SKILL.md': '---\nname: audit\ndescription: Audit the logs.\n---\nRead the logs.' } },
    },
  };
}

describe('skills', () => {
  let h: Harness;
  let reader: FakeRepositoryReader;
  const ok = async <T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> => {
    const answer = await h.json<T>(method, path, body === undefined ? {} : { body });
    expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
    return answer.body;
  };
  const run = async (body: unknown) =>
    ok<RunItem>('GET', `/agent/runs/${(await ok<{ run_id: string }>('POST', '/agent/run', body)).run_id}`);

  beforeEach(async () => {
    reader = fakeRepositoryReader(repos());
    h = await setup({ secretKey: KEY, clock: manualClock(Date.UTC(2026, 0, 1), 1), repositories: reader });
    await ok('POST', '/repositories', { name: 'acme/skills', url: 'https://git.example.com/acme/skills.git' });
  });

  describe('repositories', () => {
    it('registers, lists by name, reads and deletes; a second of the same name is a 409', async () => {
      await ok('PUT', '/team/secrets/git-read', { value: 'tok-123' });
      const created = await ok('POST', '/repositories', {
        name: 'acme/private',
        url: 'https://git.example.com/acme/private.git',
        default_branch: 'trunk',
        credential_secret: 'git-read',
      });
      expect(created).toEqual({
        name: 'acme/private',
        url: 'https://git.example.com/acme/private.git',
        default_branch: 'trunk',
        credential_secret: 'git-read',
        created_at: expect.any(String),
      });
      expect((await ok<{ repositories: { name: string }[] }>('GET', '/repositories')).repositories.map((r) => r.name)).toEqual([
        'acme/private',
        'acme/skills',
      ]);
      expect(await ok('GET', '/repositories/acme/skills')).toMatchObject({ default_branch: 'main', credential_secret: null });
      await expectProblem(await h.call('POST', '/repositories', { body: { name: 'acme/skills', url: 'file:///x' } }), 409, 'conflict');
      const inUse = await expectProblem(await h.call('DELETE', '/team/secrets/git-read'), 409, 'conflict');
      expect(inUse.detail).toMatch(/read credential of repository acme\/private/);
      expect((await h.call('DELETE', '/repositories/acme/private')).status).toBe(204);
      await expectProblem(await h.call('GET', '/repositories/acme/private'), 404, 'not_found');
      await expectProblem(await h.call('DELETE', '/repositories/acme/private'), 404, 'not_found');
      const audit = await ok<{ events: { kind: string; target: unknown; detail: unknown }[] }>(
        'GET',
        '/audit/events?kind=repository.created&kind=repository.deleted',
      );
      expect(audit.events.map((e) => [e.kind, e.target])).toEqual([
        ['repository.deleted', { type: 'repository', id: 'acme/private' }],
        ['repository.created', { type: 'repository', id: 'acme/private' }],
        ['repository.created', { type: 'repository', id: 'acme/skills' }],
      ]);
      expect(audit.events[1]?.detail).toEqual({ default_branch: 'trunk', credential_secret: 'git-read' });
    });

    it.each([
      [{ name: 'acme', url: 'https://x/y.git' }, /name/],
      [{ name: 'acme/../x', url: 'https://x/y.git' }, /name/],
      [{ name: 'acme/x', url: 'relative/path' }, /url/],
      [{ name: 'acme/x', url: 'https://user:pw@x/y.git' }, /credential/],
      [{ name: 'acme/x', url: 'https://x/y.git', default_branch: 'a..b' }, /default_branch/],
      [{ name: 'acme/x', url: 'https://x/y.git', credential_secret: 'missing' }, /no team secret missing/],
    ])('refuses %j with a 400', async (body, why) => {
      const p = await expectProblem(await h.call('POST', '/repositories', { body }), 400, 'invalid_request');
      expect(JSON.stringify(p)).toMatch(why);
    });

    it('needs manage_factory to change, and any key of the team to read', async () => {
      const reader = await h.keyFor({ ...h.principal, uid: 'reader', scopes: ['read_factory', 'read_runs'] });
      await expectProblem(await h.call('POST', '/repositories', { key: reader, body: { name: 'acme/x', url: 'file:///x' } }), 403);
      await expectProblem(await h.call('DELETE', '/repositories/acme/skills', { key: reader }), 403);
      expect((await h.call('GET', '/repositories', { key: reader })).status).toBe(200);
      expect((await h.call('GET', '/agent', { key: reader })).status).toBe(200);
    });
  });

  describe('a run from a skill', () => {
    it.each([
      ['by name', 'acme/skills:deploy'],
      ['by path', 'acme/skills:skills/deploy/SKILL.md'],
    ])('%s: the SKILL.md body is the base prompt, pinned to the commit; agent_skill and name from the front matter', async (_, spec) => {
      const item = await run({ skill: spec });
      expect(item.agent_skill).toEqual({
        spec,
        name: 'deploy',
        description: 'Ship the service.',
        full_path: 'skills/deploy/SKILL.md',
        repository: 'acme/skills',
        commit: C1,
      });
      expect(item.agent_config).toMatchObject({ name: 'deploy', skill_spec: spec, base_prompt: '# Deploy\n\nRun the release checklist.' });
      expect(item.title).toBe('deploy');
    });

    it("keeps a caller's name, and puts a caller's base prompt after the skill's", async () => {
      const item = await run({ prompt: 'Ship v2', config: { skill_spec: 'acme/skills:triage', name: 'mine', base_prompt: 'Be brief.' } });
      expect(item.agent_config).toMatchObject({ name: 'mine', base_prompt: 'Label every issue.\n\nBe brief.' });
      expect(item.agent_skill).toMatchObject({ name: 'triage', full_path: '.claude/skills/triage/SKILL.md' });
    });

    it('pins each run to the commit the branch named when it was created', async () => {
      const first = await run({ skill: 'acme/skills:deploy' });
      const repo = reader.repositories.get('https://git.example.com/acme/skills.git');
      if (!repo) throw new Error('no repo');
      repo.commits[C2] = { 'skills/deploy/SKILL.md': DEPLOY.replace('Run the release checklist.', 'Run the new checklist.') };
      repo.branches.main = C2;
      // The branch is trusted for a minute after it was fetched (docs/repositories.md, "Caching").
      h.clock.advance(DEFAULT_SKILL_REFRESH_MS - 1000);
      expect((await run({ skill: 'acme/skills:deploy' })).agent_skill?.commit).toBe(C1);
      h.clock.advance(2000);
      const second = await run({ skill: 'acme/skills:deploy' });
      expect([first.agent_skill?.commit, second.agent_skill?.commit]).toEqual([C1, C2]);
      expect(second.agent_config?.base_prompt).toBe('# Deploy\n\nRun the new checklist.');
      expect((await ok<RunItem>('GET', `/agent/runs/${first.run_id}`)).agent_config?.base_prompt).toBe(
        '# Deploy\n\nRun the release checklist.',
      );
    });

    it('opens the credential secret for a private repository', async () => {
      await ok('PUT', '/team/secrets/git-read', { value: 'tok-123' });
      await ok('POST', '/repositories', {
        name: 'acme/private',
        url: 'https://git.example.com/acme/private.git',
        default_branch: 'trunk',
        credential_secret: 'git-read',
      });
      expect((await run({ skill: 'acme/private:audit' })).agent_skill).toMatchObject({ name: 'audit', commit: C2 });
      await ok('PUT', '/team/secrets/git-read', { value: 'wrong' });
      // The branch is fetched again, with the credential as it is then, once its window is over.
      h.clock.advance(DEFAULT_SKILL_REFRESH_MS + 1);
      const p = await expectProblem(await h.call('POST', '/agent/run', { body: { skill: 'acme/private:audit' } }), 400);
      expect(p.detail).toMatch(/unauthorized/);
    });

    it.each([
      ['skill', { skill: 'other/repo:deploy' }, /no repository other\/repo is registered/],
      ['skill', { skill: 'acme/skills:missing' }, /no SKILL\.md in acme\/skills at main has the name missing/],
      ['skill', { skill: 'acme/skills:nope/SKILL.md' }, /acme\/skills has no nope\/SKILL\.md/],
      ['config.skill_spec', { config: { skill_spec: 'acme/skills:skills/broken/SKILL.md' } }, /malformed: no front matter/],
      ['config.skills[0]', { config: { skills: ['acme/skills:skills/noname/SKILL.md'] } }, /name is missing/],
    ])('an unresolvable %s is a 400 naming it, and no run is stored', async (field, body, why) => {
      const p = await expectProblem(await h.call('POST', '/agent/run', { body }), 400, 'invalid_request');
      expect(p.detail).toContain(`invalid ${field}: skill "`);
      expect(p.detail).toMatch(why);
      expect((await ok<{ runs: unknown[] }>('GET', '/agent/runs')).runs).toEqual([]);
    });

    it('without a repository reader, every skill is a 400 that says so', async () => {
      const bare = await setup({ secretKey: KEY });
      await bare.json('POST', '/repositories', { body: { name: 'acme/skills', url: 'https://git.example.com/acme/skills.git' } });
      const p = await expectProblem(await bare.call('POST', '/agent/run', { body: { skill: 'acme/skills:deploy' } }), 400);
      expect(p.detail).toMatch(/no repository reader/);
      expect((await bare.json<{ agents: unknown[] }>('GET', '/agent')).body).toEqual({ agents: [] });
    });
  });

  describe('automations and webhook-started runs', () => {
    let factory: string;
    const automation = (config: unknown) => ({
      name: 'Ship it',
      prompt: 'Ship what the payload says.',
      config,
      triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [webhook] } }],
    });
    let webhook: string;
    let token: string;
    beforeEach(async () => {
      factory = (await ok<{ uid: string }>('POST', '/factories', { name: 'Acme' })).uid;
      const created = await ok<{ webhook: { uid: string }; secret: string }>('POST', `/factories/${factory}/webhooks`, { name: 'Hook' });
      webhook = created.webhook.uid;
      token = created.secret;
    });

    it('an unresolvable skill_spec is a 400 at create and at change, through the same decider as the run API', async () => {
      const p = await expectProblem(
        await h.call('POST', `/factories/${factory}/automations`, { body: automation({ skill_spec: 'acme/skills:missing' }) }),
        400,
      );
      expect(p.detail).toMatch(/invalid config\.skill_spec: skill "acme\/skills:missing" cannot be resolved/);
      const made = await ok<{ id: string }>('POST', `/factories/${factory}/automations`, automation({ skill_spec: 'acme/skills:deploy' }));
      const q = await expectProblem(
        await h.call('PATCH', `/factories/${factory}/automations/${made.id}`, {
          body: { config: { skill_spec: 'acme/skills:skills/badyaml/SKILL.md' } },
        }),
        400,
      );
      expect(q.detail).toMatch(/not valid YAML/);
      expect((await ok<{ config: unknown }>('GET', `/factories/${factory}/automations/${made.id}`)).config).toEqual({
        skill_spec: 'acme/skills:deploy',
      });
    });

    it('definition files are checked by the same decider: each unresolvable skill an error at its path, nothing applied', async () => {
      await ok('PUT', '/team/secrets/s1', { value: 'token-one' });
      const file = (name: string, skill_spec: string) => ({
        name,
        prompt: 'p',
        config: { skill_spec },
        triggers: [{ webhooks: ['hook'] }],
      });
      const body = {
        webhooks: [{ name: 'hook', auth_mode: 'token', secret_name: 's1', enabled: true }],
        automations: [file('good', 'acme/skills:deploy'), file('bad', 'acme/skills:missing')],
        prune: true,
      };
      const p = await expectProblem(await h.call('POST', `/factories/${factory}/apply`, { body }), 400);
      expect(p.errors).toEqual([{ path: 'automations.1.config.skill_spec', detail: expect.stringMatching(/has the name missing/) }]);
      expect((await ok<{ automations: unknown[] }>('GET', `/factories/${factory}/automations`)).automations).toEqual([]);
      body.automations.pop();
      expect(await ok('POST', `/factories/${factory}/apply`, body)).toMatchObject({ applied: true });
    });

    it('a webhook-started run gets its automation’s skill exactly as an API run does', async () => {
      await ok('POST', `/factories/${factory}/automations`, automation({ skill_spec: 'acme/skills:deploy' }));
      const sent = await h.handler(
        new Request(`${ORIGIN}/webhooks/w/${webhook}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{"v":2}' }),
      );
      expect(sent.status).toBe(202);
      await h.evaluated();
      const [hooked] = (await ok<{ runs: RunItem[] }>('GET', '/agent/runs?source=WEBHOOK')).runs;
      const api = await run({ prompt: 'Ship it', skill: 'acme/skills:deploy' });
      expect(hooked?.agent_skill).toEqual(api.agent_skill);
      expect(hooked?.agent_config?.base_prompt).toBe(api.agent_config?.base_prompt);
      expect(hooked?.agent_config?.name).toBe('deploy');
      expect(api.agent_config?.name).toBe('deploy');
    });
  });

  describe('GET /agent', () => {
    type Agents = { agents: { name: string; variants: Record<string, unknown>[] }[] };
    const agents = async (query = '') => ok<Agents>('GET', `/agent${query}`);

    it('lists one agent per skill name with its variants, as the published clients type them, by name', async () => {
      expect(await agents()).toEqual({
        agents: [
          {
            name: 'deploy',
            variants: [
              {
                id: 'acme/skills:skills/deploy/SKILL.md',
                base_prompt: '# Deploy\n\nRun the release checklist.',
                description: 'Ship the service.',
                environments: [],
                source: { owner: 'acme', name: 'skills', skill_path: 'skills/deploy/SKILL.md' },
              },
            ],
          },
          {
            name: 'triage',
            variants: [
              {
                id: 'acme/skills:.claude/skills/triage/SKILL.md',
                base_prompt: 'Label every issue.',
                description: 'Sort issues: label, assign.',
                environments: [],
                source: { owner: 'acme', name: 'skills', skill_path: '.claude/skills/triage/SKILL.md' },
              },
            ],
          },
        ],
      });
    });

    it('include_malformed_skills adds each malformed SKILL.md, named by its folder, with an error', async () => {
      const listed = await agents('?include_malformed_skills=true');
      const malformed = Object.fromEntries(
        listed.agents.filter((a) => a.variants.some((v) => v.error)).map((a) => [a.name, a.variants[0]?.error]),
      );
      expect(malformed).toEqual({
        badyaml: expect.stringMatching(/^front matter is not valid YAML/),
        broken: expect.stringMatching(/^no front matter/),
        noname: 'front matter: name is missing',
      });
      expect((await agents('?include_malformed_skills=false')).agents.map((a) => a.name)).toEqual(['deploy', 'triage']);
    });

    it('repo= lists one repository; an unregistered one is a 404', async () => {
      await ok('PUT', '/team/secrets/git-read', { value: 'tok-123' });
      await ok('POST', '/repositories', {
        name: 'acme/private',
        url: 'https://git.example.com/acme/private.git',
        default_branch: 'trunk',
        credential_secret: 'git-read',
      });
      expect((await agents()).agents.map((a) => a.name)).toEqual(['audit', 'deploy', 'triage']);
      expect((await agents('?repo=acme/private')).agents.map((a) => a.name)).toEqual(['audit']);
      await expectProblem(await h.call('GET', '/agent?repo=acme/none'), 404);
    });

    it('sort_by=last_run puts the most recently run first, with its last_run_timestamp', async () => {
      await run({ skill: 'acme/skills:triage' });
      const listed = await agents('?sort_by=last_run');
      expect(listed.agents.map((a) => a.name)).toEqual(['triage', 'deploy']);
      expect(listed.agents[0]?.variants[0]?.last_run_timestamp).toEqual(expect.any(String));
      expect(listed.agents[1]?.variants[0]?.last_run_timestamp).toBeNull();
      await run({ skill: 'acme/skills:skills/deploy/SKILL.md' });
      expect((await agents('?sort_by=last_run')).agents.map((a) => a.name)).toEqual(['deploy', 'triage']);
    });

    it('answers from the cache of the commit: the files are read once, and again only when the branch moves or refresh asks', async () => {
      await agents();
      const reads = reader.calls.readFile;
      await agents();
      await run({ skill: 'acme/skills:deploy' });
      expect(reader.calls.readFile).toBe(reads);
      await agents('?refresh=true');
      expect(reader.calls.readFile).toBe(2 * reads);
    });

    it('asks the repository for its branch once a window, and concurrent resolutions share one fetch', async () => {
      await agents();
      const resolves = reader.calls.resolve;
      await Promise.all(Array.from({ length: 5 }, () => run({ skill: 'acme/skills:deploy' })));
      expect(reader.calls.resolve).toBe(resolves);
      h.clock.advance(DEFAULT_SKILL_REFRESH_MS + 1);
      await Promise.all(Array.from({ length: 5 }, () => run({ skill: 'acme/skills:deploy' })));
      expect(reader.calls.resolve).toBe(resolves + 1);
    });

    it('keeps the commit it knows while the repository is unreachable, and says so to onError', async () => {
      const first = await run({ skill: 'acme/skills:deploy' });
      const url = 'https://git.example.com/acme/skills.git';
      const repo = reader.repositories.get(url);
      if (!repo) throw new Error('no repo');
      reader.repositories.delete(url); // the fake answers unreachable
      h.clock.advance(DEFAULT_SKILL_REFRESH_MS + 1);
      const later = await run({ skill: 'acme/skills:deploy' });
      expect(later.agent_skill?.commit).toBe(first.agent_skill?.commit);
      expect(h.errors).toContainEqual(expect.objectContaining({ code: 'unreachable' }));
      reader.repositories.set(url, repo);
    });

    it.each(['sort_by=size', 'refresh=yes', 'include_malformed_skills=2', 'repo=noslash', 'other=1'])('?%s is a 400', async (query) => {
      await expectProblem(await h.call('GET', `/agent?${query}`), 400, 'invalid_request');
    });
  });
});
