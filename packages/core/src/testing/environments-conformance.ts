import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../auth/api-keys.js';
import { type AgentRunHandler, createAgentRunHandler } from '../http/handler.js';
import type { Store } from '../store/store.js';
import { base64UrlEncode } from '../util/ids.js';
import { testPrincipal } from './fixtures.js';

/**
 * Environments through the HTTP surface (docs/repositories.md, "Environments"), against a store:
 * create, list, get, replace and delete answer the same on every store; each refusal writes
 * nothing; a run's or an automation's `environment_id` must name one of the team's.
 */
export interface EnvironmentsConformanceOptions {
  /** A fresh, empty store for each test. */
  create: () => Store | Promise<Store>;
  destroy?: (store: Store) => void | Promise<void>;
}

const ORIGIN = 'http://agentrun.test';
const SECRET_KEY = base64UrlEncode(new Uint8Array(32).fill(7)).replace(/-/g, '+').replace(/_/g, '/');

// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely here; their shapes are the route table's to check
type Json = Record<string, any>;

export function describeEnvironmentsConformance(name: string, options: EnvironmentsConformanceOptions): void {
  describe(`${name}: environments`, () => {
    let store: Store;
    let handler: AgentRunHandler;
    let key: string;
    let reader: string;
    let errors: unknown[];

    const call = async (method: string, path: string, body?: unknown, auth = key) => {
      const res = await handler(
        new Request(`${ORIGIN}/api/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${auth}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        }),
      );
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json };
    };
    const ok = async (method: string, path: string, body?: unknown): Promise<Json> => {
      const res = await call(method, path, body);
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      return res.body;
    };
    const list = async () => (await ok('GET', '/environments')).environments as Json[];

    const web = {
      name: 'web',
      repositories: [
        { repository: 'https://git.example.com/acme/web.git', ref: 'main' },
        { repository: 'acme/tools', ref: 'v1.2.0', directory: 'vendor/tools' },
      ],
      setup: ['npm ci', 'npm run build'],
      variables: { NPM_TOKEN: 'npm-token' },
      setup_timeout_seconds: 300,
    };

    beforeEach(async () => {
      store = await options.create();
      errors = [];
      handler = createAgentRunHandler({ store, secretKey: SECRET_KEY, onError: (e) => errors.push(e) });
      const team = `envs-team-${name}`;
      key = await createApiKey(store.apiKeys, testPrincipal({ uid: `envs-${name}`, team_uid: team }));
      reader = await createApiKey(store.apiKeys, testPrincipal({ uid: `envs-reader-${name}`, team_uid: team, permissions: [] }));
      await ok('PUT', '/team/secrets/npm-token', { value: 'npm-secret-value' });
      // `<owner>/<repo>` names must be repositories the team registered (docs/repositories.md, "Environments").
      for (const repo of ['acme/tools', 'acme/a', 'acme/b']) {
        await ok('POST', '/repositories', { name: repo, url: `https://git.example.com/${repo}.git` });
      }
    });
    afterEach(async () => {
      expect(errors).toEqual([]);
      await options.destroy?.(store);
    });

    it('creates, lists, gets, replaces (same id and created_at) and deletes an environment', async () => {
      const created = await call('POST', '/environments', web);
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      expect(created.body).toEqual({
        id,
        name: 'web',
        repositories: [
          { repository: 'https://git.example.com/acme/web.git', ref: 'main', directory: 'web' },
          { repository: 'acme/tools', ref: 'v1.2.0', directory: 'vendor/tools' },
        ],
        setup: ['npm ci', 'npm run build'],
        variables: { NPM_TOKEN: 'npm-token' },
        setup_timeout_seconds: 300,
        factory_uid: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      expect(await ok('GET', `/environments/${id}`)).toEqual(created.body);
      const bare = await ok('POST', '/environments', { name: 'bare' });
      expect(bare).toMatchObject({ repositories: [], setup: [], variables: {}, setup_timeout_seconds: 600 });
      expect((await list()).map((e) => e.name)).toEqual(['bare', 'web']);

      const replaced = await ok('PUT', `/environments/${id}`, { name: 'web2', setup: ['make'] });
      expect(replaced).toMatchObject({ id, name: 'web2', repositories: [], setup: ['make'], created_at: created.body.created_at });
      expect(await ok('GET', `/environments/${id}`)).toEqual(replaced);

      expect((await call('DELETE', `/environments/${id}`)).status).toBe(204);
      expect((await call('GET', `/environments/${id}`)).status).toBe(404);
      expect((await call('DELETE', `/environments/${id}`)).status).toBe(404);
      expect((await call('PUT', `/environments/${id}`, web)).status).toBe(404);
      expect((await list()).map((e) => e.name)).toEqual(['bare']);

      const audit = (await ok('GET', '/audit/events')).events as Json[];
      expect(audit.map((e) => e.kind).filter((kind) => kind !== 'repository.created')).toEqual([
        'environment.deleted',
        'environment.written',
        'environment.written',
        'environment.written',
        'secret.written',
      ]);
    });

    it('refuses bad bodies, unknown secrets, overlapping directories and a taken name, writing nothing', async () => {
      await ok('POST', '/environments', web);
      const before = await list();
      const bad = await call('POST', '/environments', {
        name: 'bad name',
        repositories: [{ repository: 'not a url', directory: '../out' }],
        setup: [''],
        variables: { 'NOT-A-NAME': 'npm-token' },
        setup_timeout_seconds: 0,
      });
      expect(bad.status).toBe(400);
      expect(bad.body.detail).toContain('name');

      const secret = await call('POST', '/environments', { name: 'x', variables: { TOKEN: 'missing-secret' } });
      expect(secret.status).toBe(400);
      expect(secret.body.errors).toEqual([
        {
          path: 'variables.TOKEN',
          detail: 'no team secret named missing-secret; create it first (agentrun secret create missing-secret --team)',
        },
      ]);

      const overlap = await call('POST', '/environments', {
        name: 'x',
        repositories: [
          { repository: 'acme/a', directory: 'src' },
          { repository: 'acme/b', directory: 'src/b' },
        ],
      });
      expect(overlap.status).toBe(400);
      expect(overlap.body.errors.map((e: Json) => e.path)).toEqual(['repositories.1.directory']);

      const taken = await call('POST', '/environments', { name: 'web' });
      expect(taken.status).toBe(409);
      expect(taken.body.detail).toContain('already has an environment named web');

      const forbidden = await call('POST', '/environments', { name: 'other' }, reader);
      expect(forbidden.status).toBe(403);
      expect(await list()).toEqual(before);
      // Reading needs no more than the management reads.
      expect((await call('GET', '/environments', undefined, reader)).status).toBe(200);
    });

    it('keeps an image and container limits, shows them, and clears them on a replace that leaves them out or sends null', async () => {
      const limits = { memory_mb: 2048, cpus: 1.5, pids: 256, network: 'none' };
      const created = await ok('POST', '/environments', { name: 'boxed', image: 'ghcr.io/acme/agent:2', limits });
      expect(created).toMatchObject({ name: 'boxed', image: 'ghcr.io/acme/agent:2', limits });
      expect(await ok('GET', `/environments/${created.id}`)).toEqual(created);
      expect((await list()).find((e) => e.id === created.id)).toEqual(created);
      const bare = await ok('POST', '/environments', { name: 'bare' });
      expect(bare).not.toHaveProperty('image');
      expect(bare).not.toHaveProperty('limits');

      const some = await ok('PUT', `/environments/${created.id}`, {
        name: 'boxed',
        image: `localhost:5000/agentrun-busybox@sha256:${'a'.repeat(64)}`,
        limits: { network: 'agents_net' },
      });
      expect(some).toMatchObject({ image: `localhost:5000/agentrun-busybox@sha256:${'a'.repeat(64)}`, limits: { network: 'agents_net' } });
      expect(await ok('GET', `/environments/${created.id}`)).toEqual(some);

      const nulled = await ok('PUT', `/environments/${created.id}`, { name: 'boxed', image: null, limits: null });
      expect(nulled).not.toHaveProperty('image');
      expect(nulled).not.toHaveProperty('limits');
      await ok('PUT', `/environments/${created.id}`, { name: 'boxed', image: 'busybox', limits: {} });
      const omitted = await ok('PUT', `/environments/${created.id}`, { name: 'boxed' });
      expect(omitted).not.toHaveProperty('image');
      expect(omitted).not.toHaveProperty('limits');
      expect(await ok('GET', `/environments/${created.id}`)).toEqual(omitted);
    });

    it('refuses a malformed image or limits at their field, on create and replace, writing nothing', async () => {
      const env = await ok('POST', '/environments', { name: 'boxed', image: 'busybox:1' });
      const before = await list();
      const refusals: [Json, string][] = [
        [{ image: 'Acme/Agent' }, 'image: the repository path must be lowercase'],
        [{ image: 'busybox:' }, 'image: the tag after : must be'],
        [{ image: 'busybox@sha256:abc' }, 'image: the digest after @ must be sha256:<64 lowercase hex digits>'],
        [{ image: `a/${'b'.repeat(300)}` }, 'image: must be at most 255 characters'],
        [{ image: 7 }, 'image'],
        [{ limits: { memory_mb: 8 } }, 'limits.memory_mb'],
        [{ limits: { memory_mb: 512.5 } }, 'limits.memory_mb: must be a whole number of MiB'],
        [{ limits: { cpus: 0 } }, 'limits.cpus'],
        [{ limits: { cpus: 2000 } }, 'limits.cpus'],
        [{ limits: { pids: 4 } }, 'limits.pids'],
        [{ limits: { network: '-bad' } }, 'limits.network: must be none or a network name'],
        [{ limits: { swap_mb: 10 } }, 'limits.swap_mb'],
        [{ limits: [] }, 'limits'],
      ];
      for (const [fields, detail] of refusals) {
        for (const [method, path] of [
          ['POST', '/environments'],
          ['PUT', `/environments/${env.id}`],
        ] as const) {
          const res = await call(method, path, { name: method === 'POST' ? 'other' : 'boxed', ...fields });
          expect(res.status, `${method} ${JSON.stringify(fields)}`).toBe(400);
          expect(res.body.detail, JSON.stringify(fields)).toContain(detail);
        }
      }
      expect(await list()).toEqual(before);
    });

    it("a run's and an automation's environment_id must name one of the team's environments", async () => {
      const env = await ok('POST', '/environments', { name: 'ci' });
      const unknown = await call('POST', '/agent/run', { prompt: 'p', config: { environment_id: 'no-such-env' } });
      expect(unknown.status).toBe(400);
      expect(unknown.body.detail).toBe('invalid run request: config.environment_id: no environment no-such-env in this team');
      const run = await ok('POST', '/agent/run', { prompt: 'p', config: { environment_id: env.id } });
      expect((await ok('GET', `/agent/runs/${run.run_id}`)).agent_config.environment_id).toBe(env.id);

      const factory = (await ok('POST', '/factories', { name: 'f' })).uid;
      const automation = (config: Json) => ({ name: 'a', prompt: 'p', triggers: [], config });
      const refused = await call('POST', `/factories/${factory}/automations`, automation({ environment_id: 'no-such-env' }));
      expect(refused.status).toBe(400);
      expect(refused.body.detail).toContain('config.environment_id: no environment no-such-env in this team');
      const saved = await ok('POST', `/factories/${factory}/automations`, automation({ environment_id: env.id }));
      const patched = await call('PATCH', `/factories/${factory}/automations/${saved.id}`, { config: { environment_id: 'gone' } });
      expect(patched.status).toBe(400);
      expect((await ok('GET', `/factories/${factory}/automations/${saved.id}`)).config.environment_id).toBe(env.id);
    });
  });
}
