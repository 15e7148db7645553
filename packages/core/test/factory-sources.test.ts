import { createHmac } from 'node:crypto';
import { type FakeRepositoryReader, fakeRepositoryReader } from '@agentrun/core/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { expectProblem, type Harness, manualClock, setup } from './helpers.js';

// Factories from a repository (docs/repositories.md, "Factories from a repository") through the
// HTTP surface with the fake reader: what the source routes refuse, how push notifications are
// verified, what a commit's problems look like, and that a commit applies once. The same against
// real git repositories, on memory and PostgreSQL: packages/server/test/factory-sources.test.ts.

const KEY = Buffer.alloc(32, 5).toString('base64');
const URL = 'https://git.example.com/acme/factory.git';
const sha = (n: number) => n.toString(16).padStart(40, '0');
const WEBHOOK = 'authMode: token\nsecretName: ci-token\n';
const AUTOMATION = 'prompt: Fix the build.\ntriggers:\n  - webhooks: [ci]\n';

describe('factory sources', () => {
  let h: Harness;
  let reader: FakeRepositoryReader;
  let factoryUid: string;
  const ok = async <T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> => {
    const answer = await h.json<T>(method, path, body === undefined ? {} : { body });
    expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
    return answer.body;
  };
  /** Commit `files` on main: the branch moves to it. */
  let next = 1;
  const commit = (files: Record<string, string>): string => {
    const repo = reader.repositories.get(URL);
    if (!repo) throw new Error('no fake repository');
    const id = sha(next++);
    repo.commits[id] = files;
    repo.branches.main = id;
    return id;
  };
  const sync = () =>
    ok<{ commit: string; outcome: string; apply: { status: string; errors: unknown[] } | null }>(
      'POST',
      `/factories/${factoryUid}/source/sync`,
    );

  beforeEach(async () => {
    reader = fakeRepositoryReader({ [URL]: { branches: { main: sha(0) }, commits: { [sha(0)]: {} }, credential: 'read-token' } });
    h = await setup({ secretKey: KEY, clock: manualClock(Date.UTC(2026, 0, 1), 1), repositories: reader });
    await ok('PUT', '/team/secrets/ci-token', { value: 'ci-token-value' });
    await ok('PUT', '/team/secrets/git-read', { value: 'read-token' });
    await ok('PUT', '/team/secrets/push-secret', { value: 'push-value-1234' });
    await ok('POST', '/repositories', { name: 'acme/factory', url: URL, credential_secret: 'git-read' });
    factoryUid = (await ok<{ uid: string }>('POST', '/factories', { name: 'From git' })).uid;
  });

  it('refuses a source naming what the team does not have, or fields that do not fit, each at its path', async () => {
    const put = (body: unknown) => h.call('PUT', `/factories/${factoryUid}/source`, { body });
    expect((await expectProblem(await put({ repository: 'acme/other' }), 400)).detail).toContain('no repository acme/other registered');
    expect(
      (await expectProblem(await put({ repository: 'acme/factory', push_scheme: 'github', push_secret: 'nope' }), 400)).detail,
    ).toContain('push_secret: no team secret nope');
    const refusal = async (body: unknown) => (await expectProblem(await put(body), 400)).detail;
    expect(await refusal({ repository: 'acme/factory', push_secret: 'push-secret' })).toBe(
      'invalid source: push_secret: is required with push_scheme, and only then',
    );
    expect(await refusal({ repository: 'acme/factory', push_scheme: 'bitbucket', push_secret: 'push-secret' })).toMatch(
      /^invalid source: push_scheme: must be one of/,
    );
    for (const directory of ['../up', '/abs', 'a//b', 'a/./b'])
      expect(await refusal({ repository: 'acme/factory', directory })).toMatch(/^invalid source: directory: must be a relative path/);
    expect(await refusal({ repository: 'acme/factory', extra: 1 })).toBe('invalid source: extra: unknown field');
    await expectProblem(await h.call('PUT', '/factories/no-such-factory/source', { body: { repository: 'acme/factory' } }), 404);
    await expectProblem(await h.call('GET', `/factories/${factoryUid}/source`), 404);
    await expectProblem(await h.call('POST', `/factories/${factoryUid}/source/sync`), 404);
    await expectProblem(await h.call('DELETE', `/factories/${factoryUid}/source`), 404);
  });

  it('says in the factory read whether the factory has a source, so no reader needs the 404', async () => {
    const hasSource = async () => (await ok<{ has_source: boolean }>('GET', `/factories/${factoryUid}`)).has_source;
    expect(await hasSource()).toBe(false);
    await ok('PUT', `/factories/${factoryUid}/source`, { repository: 'acme/factory' });
    expect(await hasSource()).toBe(true);
    await ok('DELETE', `/factories/${factoryUid}/source`);
    expect(await hasSource()).toBe(false);
    // The list stays as it was: one read per factory would be a read of every source.
    expect((await ok<{ factories: object[] }>('GET', '/factories')).factories[0]).not.toHaveProperty('has_source');
  });

  it('keeps the repository and the push secret a source uses from being deleted', async () => {
    await ok('PUT', `/factories/${factoryUid}/source`, { repository: 'acme/factory', push_scheme: 'github', push_secret: 'push-secret' });
    expect((await expectProblem(await h.call('DELETE', '/repositories/acme/factory'), 409)).detail).toContain(
      `source of factory ${factoryUid}`,
    );
    expect((await expectProblem(await h.call('DELETE', '/team/secrets/push-secret'), 409)).detail).toContain('push notifications');
    await ok('DELETE', `/factories/${factoryUid}/source`);
    expect((await h.call('DELETE', '/team/secrets/push-secret')).status).toBe(204);
  });

  it('lets a read_factory key read the source and not change or sync it', async () => {
    await ok('PUT', `/factories/${factoryUid}/source`, { repository: 'acme/factory' });
    const reader = await h.keyFor({ ...h.principal, scopes: ['read_factory'] });
    expect((await h.call('GET', `/factories/${factoryUid}/source`, { key: reader })).status).toBe(200);
    expect((await h.call('GET', `/factories/${factoryUid}/source/applies`, { key: reader })).status).toBe(200);
    await expectProblem(await h.call('POST', `/factories/${factoryUid}/source/sync`, { key: reader }), 403);
    await expectProblem(await h.call('DELETE', `/factories/${factoryUid}/source`, { key: reader }), 403);
  });

  it('applies the head once with its credential; each commit once, however many syncs ask at once', async () => {
    await ok('PUT', `/factories/${factoryUid}/source`, { repository: 'acme/factory', branch: 'main' });
    const c1 = commit({ 'webhooks/ci.yaml': WEBHOOK, 'automations/fix.yaml': AUTOMATION, 'notes/readme.yaml': 'not: read' });
    const results = await Promise.all(Array.from({ length: 8 }, sync));
    expect(results.filter((r) => r.outcome === 'applied')).toHaveLength(1);
    expect(results.every((r) => r.commit === c1 && ['applied', 'already'].includes(r.outcome))).toBe(true);
    const source = await ok<{ last_applied: { commit: string; version: number; triggered_by: string } }>(
      'GET',
      `/factories/${factoryUid}/source`,
    );
    expect(source.last_applied).toMatchObject({ commit: c1, version: 1, triggered_by: 'manual' });

    // A commit that removes a file deletes what it defined (applies prune).
    const c2 = commit({ 'webhooks/ci.yaml': WEBHOOK });
    // This sync, or the one that follows every apply in the background (syncer.ts), applies it.
    expect(await sync()).toMatchObject({
      commit: c2,
      outcome: expect.stringMatching(/^(applied|already)$/),
      apply: { status: 'applied', errors: [] },
    });
    expect((await ok<{ automations: unknown[] }>('GET', `/factories/${factoryUid}/automations`)).automations).toEqual([]);
  });

  it('applies a commit pushed while another applied, without waiting for the poll', async () => {
    await ok('PUT', `/factories/${factoryUid}/source`, { repository: 'acme/factory' });
    const c1 = commit({ 'webhooks/ci.yaml': WEBHOOK });
    let c2: string | undefined;
    // The push of c2 lands while c1 is being read: its notification would find the factory busy.
    const listFiles = reader.listFiles.bind(reader);
    reader.listFiles = async (access, at, dir) => {
      if (at === c1 && c2 === undefined) c2 = commit({ 'webhooks/ci.yaml': WEBHOOK, 'automations/fix.yaml': AUTOMATION });
      return listFiles(access, at, dir);
    };
    expect(await sync()).toMatchObject({ commit: c1, outcome: 'applied' });
    for (let i = 0; i < 500; i++) {
      const s = await ok<{ last_applied: { commit: string } }>('GET', `/factories/${factoryUid}/source`);
      if (s.last_applied.commit === c2) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect((await ok<{ last_applied: { commit: string } }>('GET', `/factories/${factoryUid}/source`)).last_applied.commit).toBe(c2);
  });

  it('fails a commit with its problems at file and line, and writes nothing', async () => {
    await ok('PUT', `/factories/${factoryUid}/source`, { repository: 'acme/factory', directory: 'defs' });
    const good = commit({ 'defs/webhooks/ci.yaml': WEBHOOK });
    await sync();
    const failing = async (files: Record<string, string>) => {
      const c = commit(files);
      const result = await sync();
      // This sync, or the one that follows every apply in the background (syncer.ts), applies it.
      expect(result).toMatchObject({ commit: c, outcome: expect.stringMatching(/^(failed|already)$/), apply: { status: 'failed' } });
      return result.apply?.errors;
    };
    expect(await failing({ 'defs/webhooks/ci.yaml': 'authMode: token\nsecretName: [unclosed\n' })).toEqual([
      // Where the parser finds the flow sequence unclosed: the end of the file.
      { path: 'defs/webhooks/ci.yaml', line: 3, message: expect.stringContaining('not valid YAML') },
    ]);
    expect(await failing({ 'defs/webhooks/ci.yaml': `${WEBHOOK}colour: blue\n` })).toEqual([
      { path: 'defs/webhooks/ci.yaml', line: 3, message: 'colour: unknown field' },
    ]);
    expect(await failing({ 'defs/factory.yaml': 'uid: another-factory\n', 'defs/webhooks/ci.yaml': WEBHOOK })).toEqual([
      { path: 'defs/factory.yaml', line: 1, message: expect.stringContaining('names factory another-factory') },
    ]);
    // An empty directory would delete the factory's definitions: refused, not pruned.
    expect(await failing({ 'elsewhere/webhooks/ci.yaml': WEBHOOK })).toEqual([
      { path: 'defs', line: 0, message: expect.stringContaining('no webhooks/*.yaml') },
    ]);
    const source = await ok<{ last_applied: { commit: string } }>('GET', `/factories/${factoryUid}/source`);
    expect(source.last_applied.commit).toBe(good);
    expect((await ok<{ webhooks: { name: string }[] }>('GET', `/factories/${factoryUid}/webhooks`)).webhooks.map((w) => w.name)).toEqual([
      'ci',
    ]);
    // A failed commit is not tried again.
    expect(await sync()).toMatchObject({ outcome: 'already', apply: { status: 'failed' } });
    const page = await ok<{ applies: unknown[]; page_info: { has_next_page: boolean } }>(
      'GET',
      `/factories/${factoryUid}/source/applies?limit=2`,
    );
    expect(page.applies).toHaveLength(2);
    expect(page.page_info.has_next_page).toBe(true);
  });

  it('answers a branch it cannot read as a 400 and records nothing', async () => {
    await ok('PUT', `/factories/${factoryUid}/source`, { repository: 'acme/factory', branch: 'release' });
    expect((await expectProblem(await h.call('POST', `/factories/${factoryUid}/source/sync`), 400)).detail).toContain(
      'cannot read branch release of repository acme/factory (not_found)',
    );
    await ok('PUT', '/team/secrets/git-read', { value: 'a-wrong-token' });
    await ok('PUT', `/factories/${factoryUid}/source`, { repository: 'acme/factory' });
    expect((await expectProblem(await h.call('POST', `/factories/${factoryUid}/source/sync`), 400)).detail).toContain('(unauthorized)');
    expect((await ok<{ last_apply: unknown }>('GET', `/factories/${factoryUid}/source`)).last_apply).toBeNull();
  });

  describe('push notifications', () => {
    const pushPath = () => `http://agentrun.test/webhooks/sources/${factoryUid}`;
    const waitForApplied = async (commit: string) => {
      for (let i = 0; i < 200; i++) {
        const s = await ok<{ last_applied: { commit: string; triggered_by: string } | null }>('GET', `/factories/${factoryUid}/source`);
        if (s.last_applied?.commit === commit) return s.last_applied;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`commit ${commit} never applied`);
    };

    it('GitLab: the X-Gitlab-Token must be the push secret', async () => {
      await ok('PUT', `/factories/${factoryUid}/source`, { repository: 'acme/factory', push_scheme: 'gitlab', push_secret: 'push-secret' });
      const c = commit({ 'webhooks/ci.yaml': WEBHOOK });
      const body = JSON.stringify({ object_kind: 'push', ref: 'refs/heads/main' });
      await expectProblem(await h.call('POST', pushPath(), { raw: body, headers: { 'x-gitlab-token': 'wrong' }, key: null }), 401);
      // 20 failures a minute, then 429 without reading or checking the body, the right token too.
      for (let i = 1; i < 20; i++)
        await expectProblem(await h.call('POST', pushPath(), { raw: body, headers: { 'x-gitlab-token': 'wrong' }, key: null }), 401);
      const limited = await h.call('POST', pushPath(), { raw: body, headers: { 'x-gitlab-token': 'push-value-1234' }, key: null });
      await expectProblem(limited.clone(), 429, 'rate_limited');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      h.clock.advance(60_001);
      const accepted = await h.call('POST', pushPath(), { raw: body, headers: { 'x-gitlab-token': 'push-value-1234' }, key: null });
      expect(accepted.status).toBe(202);
      expect(await accepted.json()).toEqual({ sync: 'started' });
      expect(await waitForApplied(c)).toMatchObject({ triggered_by: 'push' });
    });

    it('Standard Webhooks: a signed POST wakes the sync; an unsigned one, or one for a factory without a push scheme, does not', async () => {
      const secret = Buffer.from('a push secret of some length').toString('base64');
      await ok('PUT', '/team/secrets/push-secret', { value: secret });
      await ok('PUT', `/factories/${factoryUid}/source`, {
        repository: 'acme/factory',
        push_scheme: 'standard-webhooks',
        push_secret: 'push-secret',
      });
      const c = commit({ 'webhooks/ci.yaml': WEBHOOK });
      const body = '{"event":"pushed"}';
      const timestamp = String(Math.floor(h.clock.now() / 1000));
      const signature = createHmac('sha256', Buffer.from(secret, 'base64')).update(`msg_1.${timestamp}.${body}`).digest('base64');
      const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
      await expectProblem(await h.call('POST', pushPath(), { raw: body, headers: { 'webhook-id': 'msg_1' }, key: null }), 401);
      expect((await h.call('POST', pushPath(), { raw: body, headers, key: null })).status).toBe(202);
      await waitForApplied(c);

      await ok('PUT', `/factories/${factoryUid}/source`, { repository: 'acme/factory' });
      await expectProblem(await h.call('POST', pushPath(), { raw: body, headers, key: null }), 404);
      await expectProblem(
        await h.call('POST', 'http://agentrun.test/webhooks/sources/no-such-factory', { raw: body, headers, key: null }),
        404,
      );
      expect(h.errors).toEqual([]);
    });
  });
});
