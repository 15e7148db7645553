import { createHmac, randomBytes } from 'node:crypto';
import { type AgentRun, createAgentRun, createApiKey, demoExecutor, type Store } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { gitSources } from '@agentrun/git-sources';
import { createMemoryStore } from '@agentrun/store-memory';
import { createPostgresStore } from '@agentrun/store-postgres';
import { Kysely, PostgresDialect } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type HttpGitServer, httpGitServer } from '../../git-sources/test/support/http-git-server.js';
import { removeTempDirs, tempDir, testRepository } from '../../git-sources/test/support/repositories.js';
import { openTestDatabase, type TestDatabase } from '../../store-postgres/test/support/database.js';
import { waitUntil } from '../../store-postgres/test/support/wait.js';

// Factories from a repository (docs/repositories.md, "Factories from a repository"), end to end
// against real repositories: bare repositories on disk, and one over smart HTTP with a token
// (`git http-backend`), read by @agentrun/git-sources; on the memory store and on PostgreSQL.

const ORIGIN = 'http://agentrun.test';
const SECRET_KEY = randomBytes(32);
const TOKEN = 'repo-token-1234';
const BASIC = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;
/** No timed assertion: states are waited for with a bound far above what they take. */
const WAIT_MS = 30_000;

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: a JSON answer, read by the assertions.
  body: any;
}

interface App {
  agentrun: AgentRun;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  close(): Promise<void>;
}

const hmac = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;

/** One agentrun instance on `store`: with a worker (so the poll runs) only when `pollMs` is given. */
async function startApp(store: Store, key: string, errors: unknown[], pollMs?: number): Promise<App> {
  const agentrun = createAgentRun({
    store,
    secretKey: SECRET_KEY,
    repositories: gitSources({ cacheDir: tempDir('cache'), allowLocalPaths: true }),
    publicBaseUrl: ORIGIN,
    // Without a worker nothing polls; with one, the poll runs at its first tick, then every pollMs.
    ...(pollMs !== undefined ? { sourcePollIntervalMs: pollMs } : {}),
    onError: (error) => errors.push(error),
  });
  if (pollMs !== undefined) agentrun.worker({ pollIntervalMs: 20, executor: demoExecutor() }).start();
  return {
    agentrun,
    async call(method, path, body, headers = {}) {
      const response = await agentrun.fetch(
        new Request(`${ORIGIN}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
          ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
        }),
      );
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    close: () => agentrun.close({ closeStore: false }),
  };
}

const WEBHOOK = (secretName: string) => `authMode: signature\nsignatureScheme: github\nsecretName: ${secretName}\n`;
const AUTOMATION = (prompt: string, webhooks = '[github]') => `prompt: ${prompt}\ntriggers:\n  - webhooks: ${webhooks}\n`;

/** A factory, its team secrets and a registered repository for it. */
async function setUp(app: App, url: string, credential?: string) {
  const names = { webhookSecret: unique('gh'), pushSecret: unique('push'), repository: `acme/${unique('defs')}` };
  expect((await app.call('PUT', `/api/v1/team/secrets/${names.webhookSecret}`, { value: 'old-value-1234' })).status).toBe(201);
  expect((await app.call('PUT', `/api/v1/team/secrets/${names.pushSecret}`, { value: 'push-value-1234' })).status).toBe(201);
  if (credential) expect((await app.call('PUT', `/api/v1/team/secrets/${credential}`, { value: TOKEN })).status).toBe(201);
  const factory = await app.call('POST', '/api/v1/factories', { name: unique('factory') });
  expect(factory.status).toBe(201);
  const repo = await app.call('POST', '/api/v1/repositories', {
    name: names.repository,
    url,
    ...(credential ? { credential_secret: credential } : {}),
  });
  expect(repo.status).toBe(201);
  return { ...names, factoryUid: factory.body.uid as string };
}

const source = (app: App, factoryUid: string) => app.call('GET', `/api/v1/factories/${factoryUid}/source`);

const waitForApply = (app: App, factoryUid: string, commit: string, status: 'applied' | 'failed') =>
  waitUntil(
    () => source(app, factoryUid),
    (a) => a.body?.last_apply?.commit === commit && a.body.last_apply.status === status,
    `commit ${commit} ${status}`,
    WAIT_MS,
  );

/** A GitHub push notification, signed with `secret`. */
const push = (app: App, factoryUid: string, secret: string, ref = 'refs/heads/main') => {
  const body = JSON.stringify({ ref, after: 'ignored' });
  return app.call('POST', `/webhooks/sources/${factoryUid}`, body, {
    'x-hub-signature-256': hmac(secret, body),
    'x-github-event': 'push',
    authorization: '',
  });
};

/** A delivery to the factory's webhook, signed with `secret`: 202 when it verifies, 401 when not. */
async function deliver(app: App, factoryUid: string, secret: string): Promise<number> {
  const [webhook] = (await app.call('GET', `/api/v1/factories/${factoryUid}/webhooks`)).body.webhooks;
  const body = JSON.stringify({ action: 'opened', n: ++counter });
  const answer = await app.call('POST', `/webhooks/w/${webhook.uid}`, body, {
    'x-hub-signature-256': hmac(secret, body),
    authorization: '',
  });
  return answer.status;
}

const auditOf = async (app: App, factoryUid: string, kind: string) =>
  (
    (await app.call('GET', `/api/v1/audit/events?kind=${kind}&limit=200`)).body.events as {
      factory_uid?: string;
      detail: Record<string, unknown>;
    }[]
  ).filter((e) => e.factory_uid === factoryUid);

/** Clear every source of the store, so that the instances of a test poll only the test's own. */
async function clearSources(store: Store): Promise<void> {
  for (const s of await store.factorySources.list(undefined, 1000)) await store.factorySources.delete(s.teamUid, s.factoryUid);
}

interface StoreCase {
  name: string;
  /** A fresh store, and a second one on the same data (another process's, where the store allows it). */
  open(): Promise<{ store: Store; another: () => Store; close(): Promise<void> }>;
}

let database: TestDatabase | undefined;
const CASES: StoreCase[] = [
  {
    name: 'memory',
    async open() {
      const store = createMemoryStore();
      return { store, another: () => store, close: async () => {} };
    },
  },
  {
    name: 'postgres',
    async open() {
      database = await openTestDatabase('sources');
      const db = database;
      const store = await db.freshStore();
      const others: Kysely<unknown>[] = [];
      return {
        store,
        // Another pool on the same schema: what a second server process holds.
        another: () => {
          if (!db.newPool) return store;
          const other = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: db.newPool(4) }) });
          others.push(other);
          return createPostgresStore({ db: other, schema: db.schema });
        },
        async close() {
          for (const other of others) await other.destroy();
          await db.close();
        },
      };
    },
  },
];

afterAll(() => removeTempDirs());

describe.each(CASES)('factories from a repository: $name', (storeCase) => {
  let opened: Awaited<ReturnType<StoreCase['open']>>;
  let key: string;
  const apps: App[] = [];
  // What each test's instances reported: a test ends with none.
  let errors: unknown[] = [];

  beforeAll(async () => {
    opened = await storeCase.open();
    key = await createApiKey(opened.store.apiKeys, testPrincipal());
  }, 60_000);
  beforeEach(() => {
    errors = [];
  });
  // Each test's instances stop with it, so none polls another test's sources.
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });
  afterAll(() => opened?.close());
  const app = async (store: Store, pollMs?: number) => {
    const made = await startApp(store, key, errors, pollMs);
    apps.push(made);
    return made;
  };

  it('applies a pushed commit after its push notification; a broken commit shows its errors at file:line and changes nothing; a new secret value takes effect at the next applied commit, not before', async () => {
    const a = await app(opened.store);
    const repo = testRepository();
    const s = await setUp(a, repo.bare);
    const c1 = repo.commit({
      'agentrun/webhooks/github.yaml': WEBHOOK(s.webhookSecret),
      'agentrun/automations/triage.yaml': AUTOMATION('Triage it.'),
      'README.md': 'not a definition',
    });
    const set = await a.call('PUT', `/api/v1/factories/${s.factoryUid}/source`, {
      repository: s.repository,
      directory: 'agentrun',
      push_scheme: 'github',
      push_secret: s.pushSecret,
    });
    expect(set.status).toBe(201);
    expect(set.body).toMatchObject({
      repository: s.repository,
      url: repo.bare,
      branch: 'main',
      directory: 'agentrun',
      push: { scheme: 'github', secret_name: s.pushSecret, url: `${ORIGIN}/webhooks/sources/${s.factoryUid}` },
      last_apply: null,
      last_applied: null,
    });

    // A notification that does not verify wakes nothing.
    expect((await push(a, s.factoryUid, 'not-the-push-secret')).status).toBe(401);
    expect((await source(a, s.factoryUid)).body.last_apply).toBeNull();
    expect(await push(a, s.factoryUid, 'push-value-1234')).toMatchObject({ status: 202, body: { sync: 'started' } });
    const first = await waitForApply(a, s.factoryUid, c1, 'applied');
    expect(first.body.last_applied).toMatchObject({ commit: c1, triggered_by: 'push', errors: [] });
    const webhooks = (await a.call('GET', `/api/v1/factories/${s.factoryUid}/webhooks`)).body.webhooks;
    expect(webhooks.map((w: { name: string; secret_name: string }) => [w.name, w.secret_name])).toEqual([['github', s.webhookSecret]]);
    expect((await a.call('GET', `/api/v1/factories/${s.factoryUid}/automations`)).body.automations).toMatchObject([{ name: 'triage' }]);
    // A push to another branch is verified and ignored.
    expect((await push(a, s.factoryUid, 'push-value-1234', 'refs/heads/dev')).body).toEqual({ sync: 'ignored' });
    // The factory is its branch's: an apply from elsewhere is refused.
    expect((await a.call('POST', `/api/v1/factories/${s.factoryUid}/apply`, { webhooks: [] })).status).toBe(409);

    // A broken commit: its errors at file and line, and nothing written.
    const c2 = repo.commit({
      'agentrun/webhooks/github.yaml': WEBHOOK('no-such-secret'),
      'agentrun/automations/triage.yaml': AUTOMATION('Triage it.', '[github, pager]'),
    });
    await push(a, s.factoryUid, 'push-value-1234');
    const broken = await waitForApply(a, s.factoryUid, c2, 'failed');
    expect(broken.body.last_apply.errors).toEqual(
      expect.arrayContaining([
        { path: 'agentrun/webhooks/github.yaml', line: 3, message: expect.stringContaining('no team secret named no-such-secret') },
        { path: 'agentrun/automations/triage.yaml', line: 3, message: expect.stringContaining('no webhook file webhooks/pager.yaml') },
      ]),
    );
    expect(broken.body.last_applied.commit).toBe(c1);
    expect((await a.call('GET', `/api/v1/factories/${s.factoryUid}/webhooks`)).body.webhooks).toEqual(webhooks);

    // A new value of the team secret (as `agentrun secret update … --team` sends it) waits for the next applied commit.
    expect((await a.call('PUT', `/api/v1/team/secrets/${s.webhookSecret}`, { value: 'new-value-5678' })).status).toBe(200);
    expect(await deliver(a, s.factoryUid, 'old-value-1234')).toBe(202);
    expect(await deliver(a, s.factoryUid, 'new-value-5678')).toBe(401);
    // Syncing again without a new commit applies nothing.
    expect((await a.call('POST', `/api/v1/factories/${s.factoryUid}/source/sync`)).body).toMatchObject({ commit: c2, outcome: 'already' });
    expect(await deliver(a, s.factoryUid, 'new-value-5678')).toBe(401);

    // The next commit fixes the files; the webhook's file is as it was at c1, and its secret is renewed all the same.
    const c3 = repo.commit({
      'agentrun/webhooks/github.yaml': WEBHOOK(s.webhookSecret),
      'agentrun/automations/triage.yaml': AUTOMATION('Triage it, again.'),
    });
    await push(a, s.factoryUid, 'push-value-1234');
    await waitForApply(a, s.factoryUid, c3, 'applied');
    expect(await deliver(a, s.factoryUid, 'new-value-5678')).toBe(202);
    expect(await deliver(a, s.factoryUid, 'old-value-1234')).toBe(401);

    const applies = await a.call('GET', `/api/v1/factories/${s.factoryUid}/source/applies?limit=2`);
    expect(applies.body.applies.map((x: { commit: string; status: string }) => [x.commit, x.status])).toEqual([
      [c3, 'applied'],
      [c2, 'failed'],
    ]);
    const rest = await a.call('GET', `/api/v1/factories/${s.factoryUid}/source/applies?cursor=${applies.body.page_info.next_cursor}`);
    expect(rest.body.applies.map((x: { commit: string }) => x.commit)).toEqual([c1]);
    expect((await auditOf(a, s.factoryUid, 'source.failed')).map((e) => e.detail.commit)).toEqual([c2]);
    expect(errors).toEqual([]);
  }, 60_000);

  it('over smart HTTP with a token, with notifications off: a pushed commit applies within the poll interval', async () => {
    const root = tempDir('http');
    const repo = testRepository(root, 'defs');
    const server: HttpGitServer = await httpGitServer(root, BASIC);
    try {
      const a = await app(opened.store, 200);
      const s = await setUp(a, `${server.url}/defs.git`, unique('git-token'));
      const c1 = repo.commit({ 'webhooks/github.yaml': WEBHOOK(s.webhookSecret) });
      expect((await a.call('PUT', `/api/v1/factories/${s.factoryUid}/source`, { repository: s.repository })).status).toBe(201);
      const first = await waitForApply(a, s.factoryUid, c1, 'applied');
      expect(first.body).toMatchObject({ directory: '', push: null, last_apply: { triggered_by: 'poll' } });
      const c2 = repo.commit({ 'automations/triage.yaml': AUTOMATION('Triage it.') });
      await waitForApply(a, s.factoryUid, c2, 'applied');
      expect((await a.call('GET', `/api/v1/factories/${s.factoryUid}/automations`)).body.automations).toMatchObject([{ name: 'triage' }]);
      expect(server.requests.some((r) => r.authorization === BASIC)).toBe(true);
      expect(errors).toEqual([]);
      expect((await a.call('DELETE', `/api/v1/factories/${s.factoryUid}/source`)).status).toBe(204);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('two instances on one store, both polling and both notified, apply each commit once', async () => {
    // Only this test's source is polled: the earlier tests' are cleared.
    await clearSources(opened.store);
    const a = await app(opened.store, 50);
    const b = await app(opened.another(), 50);
    const repo = testRepository();
    const s = await setUp(a, repo.bare);
    repo.commit({ 'webhooks/github.yaml': WEBHOOK(s.webhookSecret), 'automations/triage.yaml': AUTOMATION('Prompt 0.') });
    expect(
      (
        await b.call('PUT', `/api/v1/factories/${s.factoryUid}/source`, {
          repository: s.repository,
          push_scheme: 'github',
          push_secret: s.pushSecret,
        })
      ).status,
    ).toBe(201);
    const commits: string[] = [];
    for (let i = 1; i <= 3; i++) {
      const commit = repo.commit({ 'automations/triage.yaml': AUTOMATION(`Prompt ${i}.`) });
      commits.push(commit);
      await Promise.all([push(a, s.factoryUid, 'push-value-1234'), push(b, s.factoryUid, 'push-value-1234')]);
      await waitForApply(b, s.factoryUid, commit, 'applied');
    }
    // Both keep polling meanwhile: let them, then count.
    await Promise.all([a.agentrun.maintenance.runAll(), b.agentrun.maintenance.runAll()]);
    const applied = await auditOf(a, s.factoryUid, 'source.applied');
    const last3 = applied.map((e) => e.detail.commit as string).filter((c) => commits.includes(c));
    expect(last3.sort()).toEqual([...commits].sort());
    const history = (await a.call('GET', `/api/v1/factories/${s.factoryUid}/source/applies`)).body.applies;
    expect(new Set(history.map((x: { commit: string }) => x.commit)).size).toBe(history.length);
    // One definitions write per commit that changed something: the first commit (if it was seen) and the three.
    const writes = await auditOf(a, s.factoryUid, 'definitions.applied');
    expect(writes.length).toBe(history.filter((x: { status: string }) => x.status === 'applied').length);
    const versions = history.map((x: { version: number }) => x.version);
    expect(new Set(versions).size).toBe(versions.length);
    expect(errors).toEqual([]);
  }, 60_000);
});
