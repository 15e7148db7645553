import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentRun, createAgentRun, createApiKey, type RunItem } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { processExecutor } from '@agentrun/executor-process';
import { gitSources } from '@agentrun/git-sources';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpGitServer, httpGitServer } from '../../packages/git-sources/test/support/http-git-server.js';
import { removeTempDirs, type TestRepository, tempDir, testRepository } from '../../packages/git-sources/test/support/repositories.js';
import { until } from './support/host-processes.js';
import { HOSTILE_STORES, storeFor } from './support/stores.js';
import { testScope } from './support/test-scope.js';

/**
 * Team B, with `manage_factory`, against team A's private repository on the same server
 * (docs/repositories.md, "URLs" and "The cache"). A registers its repository (over HTTP, behind a
 * token) and reads it, so the server's git cache holds A's objects. B then tries every way the API
 * offers to reach them: registering the cache entry's path (as written, as `file://`, through
 * symbolic links, with and without `.git`), or A's URL at A's commit (answered from a shared cache
 * entry if there were one); then reading that registration through skills on a run, `GET /agent`,
 * environments (by name and by clone URL) and a factory source. Each is a problem+json 4xx or a run
 * that fails before its agent starts, and nothing of A's repository reaches B.
 */

const KEY = Buffer.alloc(32, 11).toString('base64');
const TOKEN = 'team-a-git-token-31f9';
const HEADER = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;
/** In every file of A's repository: B must never see it. */
const SECRET = 'TEAM-A-PRIVATE-c41d7e';
/** How the cache names a ref it fetched (git-sources.ts): what the original attack asked for. */
const CACHED_MAIN = `refs/cached/refs/${createHash('sha256').update('main').digest('hex')}`;

const teamA = testPrincipal({ uid: 'user-a', team_uid: 'team-a', permissions: ['manage_factory'] });
const teamB = testPrincipal({ uid: 'user-b', team_uid: 'team-b', permissions: ['manage_factory'] });

/** Prints every file the workspace holds, and each file's text: whatever a setup cloned would show. */
const AGENT = ['find . -type f | sort', 'find . -type f -exec cat {} +', 'echo agent done'].join('\n');

let origin: string;
let privateRepo: TestRepository;
let commit: string;
let http: HttpGitServer;
let privateUrl: string;

beforeAll(async () => {
  origin = tempDir('origin');
  privateRepo = testRepository(origin, 'private');
  commit = privateRepo.commit({
    'skills/private/SKILL.md': `---\nname: private-skill\ndescription: ${SECRET}\n---\nThe instructions: ${SECRET}\n`,
    'agentrun/environments/stolen.yaml': `setup:\n  - echo ${SECRET}\n`,
    'README.md': `${SECRET}\n`,
  });
  http = await httpGitServer(origin, HEADER);
  privateUrl = `${http.url}/private.git`;
});
afterAll(async () => {
  await http?.close();
  removeTempDirs();
});

interface Answer {
  status: number;
  type: string;
  body: Record<string, unknown>;
  text: string;
}

describe.each(HOSTILE_STORES)("team B against team A's private repository, on %s", (kind) => {
  const stores = storeFor(kind, 'cross_team_repos');
  const scope = testScope();

  /** One server (memory or Postgres), its git layer shared by skills and the process executor, as the reference server's is. */
  const start = async (allowLocalPaths: boolean) => {
    scope.root = mkdtempSync(join(tmpdir(), 'agentrun-hostile-repos-'));
    const cacheDir = tempDir('cache');
    const git = gitSources({ cacheDir, allowLocalPaths });
    const store = await stores.fresh();
    const executor = processExecutor({ command: AGENT, shell: true, workspaceRoot: scope.root, repositories: git, onError: () => {} });
    const agentrun = createAgentRun({ store, executor, secretKey: KEY, repositories: git });
    const keys = { a: await createApiKey(store.apiKeys, teamA), b: await createApiKey(store.apiKeys, teamB) };
    /** Everything B was ever answered, to search for A's content at the end. */
    const seenByB: string[] = [];
    const call = async (team: 'a' | 'b', method: string, path: string, body?: unknown): Promise<Answer> => {
      const res = await agentrun.fetch(
        new Request(`http://agentrun.test/api/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${keys[team]}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      );
      const text = await res.text();
      if (team === 'b') seenByB.push(text);
      return { status: res.status, type: res.headers.get('content-type') ?? '', body: text === '' ? {} : JSON.parse(text), text };
    };
    scope.worker = agentrun.worker({ concurrency: 1, pollIntervalMs: 20 });
    scope.worker.start();

    // Team A: its private repository, registered with its token and read, so the cache holds it.
    expect((await call('a', 'PUT', '/team/secrets/git-read', { value: TOKEN })).status).toBeLessThan(300);
    expect((await call('a', 'POST', '/repositories', { name: 'a/private', url: privateUrl, credential_secret: 'git-read' })).status).toBe(
      201,
    );
    const listed = await call('a', 'GET', '/agent?repo=a/private');
    expect(listed.status).toBe(200);
    expect(listed.text).toContain(SECRET);
    const entries = readdirSync(cacheDir).filter((name) => name.endsWith('.git'));
    expect(entries.length).toBeGreaterThan(0);
    return { agentrun, call, cacheDir, entries, seenByB };
  };

  /** A refusal as every bad input gets one: a problem+json 4xx that says why. */
  const expectRefused = (answer: Answer, status: number, detail: RegExp) => {
    expect(answer.status, answer.text).toBe(status);
    expect(answer.type).toMatch(/^application\/problem\+json/);
    expect(String(answer.body.detail)).toMatch(detail);
    expect(answer.text).not.toContain(SECRET);
  };

  /** Runs B's run to its end and answers it with everything its transcript holds. */
  const runToEnd = async (agentrun: AgentRun, runId: string) => {
    let run: RunItem = await agentrun.services.runs.get(teamB, runId);
    await until(
      async () => {
        run = await agentrun.services.runs.get(teamB, runId);
        return ['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'].includes(run.state);
      },
      `run ${runId} to end`,
      15_000,
    );
    const events = await agentrun.store.runEvents.list(runId, { limit: 10_000 });
    return { run, all: JSON.stringify([run, events]) };
  };

  /** Every path B could name that reaches A's cache entries: as written, `file://`, without `.git`, through links B made. */
  const pathsInto = (cacheDir: string, entries: string[]) => {
    const links = tempDir('b-links');
    symlinkSync(cacheDir, join(links, 'cache'));
    const paths: string[] = [];
    // The name the cache gave A's URL before entries were per team: what an attacker would guess.
    const guessed = `${createHash('sha256').update(privateUrl).digest('hex').slice(0, 40)}.git`;
    for (const [i, entry] of [...new Set([...entries, guessed])].entries()) {
      const path = join(cacheDir, entry);
      symlinkSync(path, join(links, `to-${i}.git`));
      paths.push(
        path,
        `file://${path}`,
        path.replace(/\.git$/, ''),
        join(links, `to-${i}.git`),
        `file://${join(links, `to-${i}.git`)}`,
        join(links, `to-${i}`),
        join(links, 'cache', entry),
      );
    }
    return [...paths, cacheDir, `file://${cacheDir}`];
  };

  for (const allowLocalPaths of [false, true]) {
    const policy = allowLocalPaths ? 'local paths allowed' : 'remote URLs only (the default)';

    it(`refuses every path into the cache as B's repository or environment, with a clear 400 (${policy})`, async () => {
      const { call, cacheDir, entries, seenByB } = await start(allowLocalPaths);
      const why = allowLocalPaths ? /is refused: it is a path into the server's git cache/ : /is refused: .*local paths are off/;
      for (const url of pathsInto(cacheDir, entries)) {
        const registered = await call('b', 'POST', '/repositories', { name: 'b/x', url, default_branch: CACHED_MAIN });
        expectRefused(registered, 400, /^invalid repository: url: repository URL/);
        expect(String(registered.body.detail)).toMatch(why);
        expect(registered.body.errors).toEqual([{ path: 'url', detail: expect.stringMatching(why) }]);
        if (url.startsWith('file://')) {
          // An environment may name a clone URL directly: the same decider, at its path.
          const environment = await call('b', 'POST', '/environments', { name: 'steal', repositories: [{ repository: url, ref: commit }] });
          expectRefused(environment, 400, /^invalid environment: repositories\.0\.repository: repository URL/);
        }
      }
      // Nothing was written for B, and B's views are empty.
      expect((await call('b', 'GET', '/repositories')).body).toEqual({ repositories: [] });
      expect((await call('b', 'GET', '/environments')).body).toEqual({ environments: [] });
      expectRefused(await call('b', 'GET', '/agent?repo=b/x'), 404, /repository b\/x not found/);
      expect((await call('b', 'GET', '/agent')).body).toEqual({ agents: [] });
      expect(seenByB.join('\n')).not.toContain(SECRET);
    });

    it(`gives B nothing of A's repository through A's own URL: skills, GET /agent, environments, a factory source (${policy})`, async () => {
      const { agentrun, call, seenByB } = await start(allowLocalPaths);
      // A's URL is a remote URL: B may register it, without A's token, at A's commit or branch.
      for (const [name, branch] of [
        ['b/x', commit],
        ['b/main', 'main'],
        ['b/cached', CACHED_MAIN],
      ] as const) {
        expect((await call('b', 'POST', '/repositories', { name, url: privateUrl, default_branch: branch })).status).toBe(201);
        // The agent list of that repository, and a run naming its skill either way: refused, naming the reason.
        expectRefused(
          await call('b', 'GET', `/agent?repo=${name}`),
          400,
          new RegExp(`^repository ${name} cannot be read \\((unauthorized|not_found)\\)`),
        );
        expectRefused(await call('b', 'GET', `/agent?repo=${name}&refresh=true`), 400, /cannot be read/);
        for (const skill of [`${name}:private-skill`, `${name}:skills/private/SKILL.md`]) {
          expectRefused(
            await call('b', 'POST', '/agent/run', { prompt: 'go', skill }),
            400,
            new RegExp(`repository ${name} \\((unauthorized|not_found)\\)`),
          );
          expectRefused(
            await call('b', 'POST', '/agent/run', { prompt: 'go', config: { skill_spec: skill } }),
            400,
            /(unauthorized|not_found)/,
          );
        }
      }
      // B's whole agent list leaves the unreadable repositories out: A's skill is not in it.
      expect((await call('b', 'GET', '/agent')).body).toEqual({ agents: [] });

      // Environments naming it (by B's registration, and by A's URL directly) at A's commit: saved
      // (the URL is remote), but the run fails its setup before the agent starts, with no file of A's.
      for (const repository of ['b/x', privateUrl]) {
        const environment = await call('b', 'POST', '/environments', {
          name: `steal-${repository === privateUrl ? 'url' : 'name'}`,
          repositories: [{ repository, ref: commit, directory: 'stolen' }],
        });
        expect(environment.status, environment.text).toBe(201);
        const created = await call('b', 'POST', '/agent/run', { prompt: 'list', config: { environment_id: environment.body.id } });
        expect(created.status, created.text).toBeLessThan(300);
        const { run, all } = await runToEnd(agentrun, String(created.body.run_id));
        expect(run.state, all).toBe('FAILED');
        expect(run.status_message?.error_code).toBe('environment_setup_failed');
        expect(run.status_message?.message).toMatch(new RegExp(`^Cloning \\S+ at ${commit} failed: `));
        expect(all).not.toContain(SECRET);
        expect(all).not.toContain('agent done');
      }

      // A factory source on B's registration: the sync cannot read the branch, and applies nothing.
      const factory = await call('b', 'POST', '/factories', { name: 'thief' });
      expect(factory.status).toBe(201);
      const uid = String(factory.body.uid);
      expect((await call('b', 'PUT', `/factories/${uid}/source`, { repository: 'b/x', directory: 'agentrun' })).status).toBe(201);
      expectRefused(await call('b', 'POST', `/factories/${uid}/source/sync`), 400, /(unauthorized|not_found)/);
      const environments = (await call('b', 'GET', '/environments')).body.environments as { name: string }[];
      expect(environments.map((e) => e.name).sort()).toEqual(['steal-name', 'steal-url']);
      expect(seenByB.join('\n')).not.toContain(SECRET);

      // A still reads its own repository through its own registration.
      expect((await call('a', 'GET', '/agent?repo=a/private')).text).toContain(SECRET);
    });
  }

  it('reads a repository on disk where the operator allows local paths, and refuses it where not', async () => {
    const local = testRepository(tempDir('b-origin'), 'own');
    local.commit({ 'skills/own/SKILL.md': '---\nname: own-skill\n---\nB’s own.\n' });
    const allowed = await start(true);
    expect((await allowed.call('b', 'POST', '/repositories', { name: 'b/own', url: `file://${local.bare}` })).status).toBe(201);
    expect((await allowed.call('b', 'GET', '/agent?repo=b/own')).text).toContain('own-skill');
    await scope.worker?.stop();
    scope.worker = undefined;
    rmSync(scope.root as string, { recursive: true, force: true });
    const remoteOnly = await start(false);
    expectRefused(
      await remoteOnly.call('b', 'POST', '/repositories', { name: 'b/own', url: local.bare }),
      400,
      /local paths are off \(allowLocalPaths\)/,
    );
  });
});
