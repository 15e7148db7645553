import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../auth/api-keys.js';
import { type AgentRunHandler, createAgentRunHandler } from '../http/handler.js';
import type { Store } from '../store/store.js';
import { base64UrlEncode } from '../util/ids.js';
import { makeSecret, makeWebhook } from './control-plane-conformance.js';
import { testPrincipal } from './fixtures.js';

/**
 * Definition files applied through the HTTP surface (docs/definitions.md), against a store: every
 * answer the same on every store, each refusal writing nothing, and the managed-secret rule of
 * seed 4.9 item 4 (a new value takes effect at the next apply, never before).
 */
export interface DefinitionsConformanceOptions {
  /** A fresh, empty store for each test. */
  create: () => Store | Promise<Store>;
  destroy?: (store: Store) => void | Promise<void>;
}

const ORIGIN = 'http://agentrun.test';
const SECRET_KEY = base64UrlEncode(new Uint8Array(32).fill(5)).replace(/-/g, '+').replace(/_/g, '/');

// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely here; their shapes are the route table's to check
type Json = Record<string, any>;

export function describeDefinitionsConformance(name: string, options: DefinitionsConformanceOptions): void {
  describe(`${name}: definition files`, () => {
    let store: Store;
    let handler: AgentRunHandler;
    let key: string;
    let factory: string;
    let errors: unknown[];

    const call = (method: string, path: string, body?: unknown, auth: string | null = key) =>
      handler(
        new Request(ORIGIN + path, {
          method,
          headers: {
            ...(auth !== null ? { authorization: `Bearer ${auth}` } : {}),
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        }),
      );
    const ok = async (method: string, path: string, body?: unknown): Promise<Json> => {
      const res = await call(method, path, body);
      const text = await res.text();
      expect(res.status, text).toBeLessThan(300);
      return text ? JSON.parse(text) : {};
    };
    const problem = async (status: number, method: string, path: string, body?: unknown): Promise<Json> => {
      const res = await call(method, path, body);
      const text = await res.text();
      expect(res.status, text).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      return JSON.parse(text);
    };
    const apply = (body: Json) => ok('POST', `/api/v1/factories/${factory}/apply`, body);
    const refused = (body: Json) => problem(400, 'POST', `/api/v1/factories/${factory}/apply`, body);
    const putSecret = (secret: string, value: string) => ok('PUT', `/api/v1/team/secrets/${secret}`, { value });
    const webhooks = async () => (await ok('GET', `/api/v1/factories/${factory}/webhooks`)).webhooks as Json[];
    const deliver = (uid: string, token: string) =>
      call('POST', `/webhooks/w/${uid}`, { n: Math.random() }, token).then(async (r) => {
        await r.body?.cancel();
        return r.status;
      });
    /** The factory's state as the API shows it, to compare before and after a refusal. */
    const snapshot = async () => ({
      webhooks: await webhooks(),
      automations: (await ok('GET', `/api/v1/factories/${factory}/automations`)).automations,
      secrets: (await ok('GET', '/api/v1/team/secrets')).secrets,
    });

    const github = { name: 'github', auth_mode: 'token', secret_name: 'github-token' };
    const triage = { name: 'triage', prompt: 'Triage it', triggers: [{ webhooks: ['github'], payload: { action: ['opened'] } }] };

    beforeEach(async () => {
      store = await options.create();
      errors = [];
      handler = createAgentRunHandler({ store, secretKey: SECRET_KEY, onError: (e) => errors.push(e) });
      key = await createApiKey(store.apiKeys, testPrincipal({ uid: `defs-${name}`, team_uid: `defs-team-${name}` }));
      factory = (await ok('POST', '/api/v1/factories', { name: 'from files' })).uid;
      await putSecret('github-token', 'token-one');
      // Environments name repositories the team registered (docs/repositories.md, "Environments").
      for (const name of ['acme/web', 'acme/a', 'acme/b']) {
        await ok('POST', '/api/v1/repositories', { name, url: `https://git.example.com/${name}.git` });
      }
    });
    afterEach(async () => {
      expect(errors).toEqual([]);
      await options.destroy?.(store);
    });

    it('first apply creates each file; the webhook verifies with the team secret; re-apply changes nothing', async () => {
      const first = await apply({ webhooks: [github], automations: [triage] });
      expect(first).toMatchObject({ applied: true, dry_run: false, version: 1 });
      expect(first.webhooks).toEqual([expect.objectContaining({ name: 'github', action: 'create', changes: [], secret_pending: false })]);
      expect(first.automations).toEqual([expect.objectContaining({ name: 'triage', action: 'create' })]);
      const uid = first.webhooks[0].uid;
      expect(first.webhooks[0].ingress_url).toBe(`${ORIGIN}/webhooks/w/${uid}`);

      // Shown with the secret its file names; the copy it verifies with is no secret of the team's.
      expect(await webhooks()).toEqual([
        expect.objectContaining({
          uid,
          name: 'github',
          secret_name: 'github-token',
          enabled: true,
          definition_file: 'webhooks/github.yaml',
        }),
      ]);
      expect((await ok('GET', '/api/v1/team/secrets')).secrets.map((s: Json) => s.name)).toEqual(['github-token']);
      const [automation] = (await ok('GET', `/api/v1/factories/${factory}/automations`)).automations;
      expect(automation.triggers).toEqual([
        { provider: 'webhook', event: 'received', filter: { webhook_ids: [uid], payload: { action: ['opened'] } } },
      ]);
      // Its file named, in the list and read alone; one made through the API names none.
      expect(automation.definition_file).toBe('automations/triage.yaml');
      expect((await ok('GET', `/api/v1/factories/${factory}/automations/${automation.id}`)).definition_file).toBe(
        'automations/triage.yaml',
      );
      const made = await ok('POST', `/api/v1/factories/${factory}/automations`, { name: 'by-hand', prompt: 'p', triggers: [] });
      expect(made.definition_file).toBeUndefined();
      expect((await ok('GET', `/api/v1/factories/${factory}/automations/${made.id}`)).definition_file).toBeUndefined();
      await ok('DELETE', `/api/v1/factories/${factory}/automations/${made.id}`);
      expect(await deliver(uid, 'token-one')).toBe(202);
      expect(await deliver(uid, 'token-two')).toBe(401);

      const again = await apply({ webhooks: [github], automations: [triage] });
      expect(again).toMatchObject({ applied: false, version: 1 });
      expect(again.webhooks).toEqual([expect.objectContaining({ uid, action: 'unchanged' })]);
      expect(again.automations).toEqual([expect.objectContaining({ id: automation.id, action: 'unchanged' })]);
    });

    it('a changed key updates in place: same UID, only the changed keys named', async () => {
      const {
        webhooks: [created],
      } = await apply({ webhooks: [github], automations: [triage] });
      const changed = await apply({
        webhooks: [{ ...github, delivery_id_header: 'X-GitHub-Delivery', enabled: false }],
        automations: [{ ...triage, prompt: 'Triage it, kindly' }],
      });
      expect(changed).toMatchObject({ applied: true, version: 2 });
      expect(changed.webhooks[0]).toMatchObject({ uid: created.uid, action: 'update', changes: ['delivery_id_header', 'enabled'] });
      expect(changed.automations[0]).toMatchObject({ action: 'update', changes: ['prompt'] });
      expect(await webhooks()).toEqual([
        expect.objectContaining({ uid: created.uid, delivery_id_header: 'X-GitHub-Delivery', enabled: false }),
      ]);
      expect(await deliver(created.uid, 'token-one')).toBe(404);
    });

    it('a dry run answers the plan and writes nothing', async () => {
      const plan = await apply({ webhooks: [github], automations: [triage], dry_run: true });
      expect(plan).toMatchObject({ applied: false, dry_run: true, version: 0 });
      expect(plan.webhooks[0]).toMatchObject({ action: 'create' });
      expect(await webhooks()).toEqual([]);
    });

    it('refuses a missing team secret and a url_token secret that is not URL-safe, naming file and key, writing nothing', async () => {
      await putSecret('spaced', 'not url safe!');
      const before = await snapshot();
      const answer = await refused({
        webhooks: [github, { name: 'ci', secret_name: 'nope' }, { name: 'pager', auth_mode: 'url_token', secret_name: 'spaced' }],
        automations: [triage],
      });
      expect(answer.error).toBe('invalid_request');
      expect(answer.errors).toEqual([
        { path: 'webhooks.1.secret_name', detail: expect.stringContaining('no team secret named nope') },
        { path: 'webhooks.2.secret_name', detail: expect.stringContaining('not URL-safe') },
      ]);
      expect(await snapshot()).toEqual(before);
    });

    it('refuses bad files with every problem at its path', async () => {
      const answer = await refused({
        webhooks: [{ name: 'bad name', secret_name: 'github-token', auth_mode: 'signature', colour: 'red' }],
        automations: [],
      });
      const paths = answer.errors.map((e: Json) => e.path);
      expect(paths).toEqual(expect.arrayContaining(['webhooks.0.name', 'webhooks.0.colour']));
      const triggers = await refused({
        webhooks: [github],
        automations: [{ ...triage, triggers: [{ webhooks: ['gitlab'] }, { webhooks: ['github'], payload: { action: { $regex: 'x' } } }] }],
      });
      expect(triggers.errors.map((e: Json) => e.path)).toEqual([
        'automations.0.triggers.0.webhooks.0',
        'automations.0.triggers.1.payload.action.$regex',
      ]);
      expect(await webhooks()).toEqual([]);
    });

    it('refuses a NUL in any string and a credential delivery ID header with errors at their paths, like every refusal', async () => {
      const nul = await refused({ webhooks: [github], automations: [{ ...triage, prompt: 'Triage\u0000it' }] });
      expect(nul.errors).toEqual([{ path: 'automations.0.prompt', detail: expect.stringContaining('NUL') }]);
      expect(nul.detail).toContain('automations.0.prompt');
      const header = await refused({ webhooks: [{ ...github, delivery_id_header: 'X-Auth-Id' }], automations: [] });
      expect(header.errors).toEqual([
        { path: 'webhooks.0.delivery_id_header', detail: expect.stringContaining('X-Auth-Id carries credentials') },
      ]);
      expect(await webhooks()).toEqual([]);
    });

    it('a new value of the team secret takes effect when the definition next applies, never before', async () => {
      const {
        webhooks: [w],
      } = await apply({ webhooks: [github] });
      await putSecret('github-token', 'token-two');
      expect(await deliver(w.uid, 'token-one')).toBe(202);
      expect(await deliver(w.uid, 'token-two')).toBe(401);
      // An unchanged file does not apply again; the plan says the value is waiting.
      const unchanged = await apply({ webhooks: [github] });
      expect(unchanged.webhooks[0]).toMatchObject({ action: 'unchanged', secret_pending: true });
      expect(await deliver(w.uid, 'token-two')).toBe(401);
      // Toggling Enabled off and on applies it again.
      await ok('PATCH', `/api/v1/factories/${factory}/webhooks/${w.uid}`, { enabled: false });
      expect(await deliver(w.uid, 'token-one')).toBe(404);
      await ok('PATCH', `/api/v1/factories/${factory}/webhooks/${w.uid}`, { enabled: true });
      expect(await deliver(w.uid, 'token-two')).toBe(202);
      expect(await deliver(w.uid, 'token-one')).toBe(401);
      expect((await apply({ webhooks: [github] })).webhooks[0]).toMatchObject({ action: 'unchanged', secret_pending: false });
    });

    it('turning a file-defined webhook on needs its team secret: without it, a 400 and the webhook stays off', async () => {
      const {
        webhooks: [w],
      } = await apply({ webhooks: [github] });
      const path = `/api/v1/factories/${factory}/webhooks/${w.uid}`;
      await ok('PATCH', path, { enabled: false });
      await ok('DELETE', '/api/v1/team/secrets/github-token');
      expect((await problem(400, 'PATCH', path, { enabled: true })).detail).toContain('github-token, which does not exist');
      expect(await webhooks()).toEqual([expect.objectContaining({ uid: w.uid, enabled: false })]);
      // With the team secret back, turning it on copies its value.
      await putSecret('github-token', 'token-one');
      await ok('PATCH', path, { enabled: true });
      expect(await deliver(w.uid, 'token-one')).toBe(202);
    });

    it('refuses a rename, with or without --prune, and a missing file without --prune', async () => {
      const {
        webhooks: [w],
      } = await apply({ webhooks: [github], automations: [triage] });
      const moved = { ...github, name: 'gh' };
      const renamed = { webhooks: [moved], automations: [{ ...triage, triggers: [{ webhooks: ['gh'] }] }] };
      for (const prune of [false, true]) {
        const answer = await refused({ ...renamed, prune });
        expect(answer.errors).toEqual([
          { path: 'webhooks.0.name', detail: expect.stringContaining('renaming a webhook is not supported') },
        ]);
      }
      const missing = await refused({ webhooks: [], automations: [] });
      expect(missing.errors).toEqual([
        { path: 'webhooks', detail: expect.stringContaining('--prune') },
        { path: 'automations', detail: expect.stringContaining('--prune') },
      ]);
      expect((await webhooks()).map((x) => x.uid)).toEqual([w.uid]);

      const pruned = await apply({ webhooks: [], automations: [], prune: true });
      expect(pruned.webhooks).toEqual([expect.objectContaining({ uid: w.uid, action: 'delete' })]);
      expect(pruned.automations).toEqual([expect.objectContaining({ action: 'delete' })]);
      expect(await webhooks()).toEqual([]);
      expect(await deliver(w.uid, 'token-one')).toBe(404);
    });

    it('a file-defined factory refuses the API changes its files own', async () => {
      const {
        webhooks: [w],
      } = await apply({ webhooks: [github] });
      const base = `/api/v1/factories/${factory}/webhooks`;
      expect((await problem(409, 'POST', base, { name: 'other' })).detail).toContain('webhooks/other.yaml');
      expect((await problem(409, 'POST', `${base}/${w.uid}/rotate-secret`)).detail).toContain('agentrun secret update github-token --team');
      expect((await problem(409, 'DELETE', `${base}/${w.uid}`)).detail).toContain('--prune');
      expect((await problem(409, 'PATCH', `${base}/${w.uid}`, { delivery_id_header: 'X-Id' })).detail).toContain('webhooks/github.yaml');
      await problem(404, 'DELETE', `/api/v1/team/secrets/${encodeURIComponent(`~github-token@${w.uid}`)}`);
    });

    it('adopts a webhook made through the API by its name, keeping its UID and URL', async () => {
      const made = await ok('POST', `/api/v1/factories/${factory}/webhooks`, { name: 'github' });
      expect(made.webhook.definition_file).toBeUndefined();
      const adopted = await apply({ webhooks: [github] });
      expect(adopted.webhooks[0]).toMatchObject({ uid: made.webhook.uid, action: 'adopt', changes: ['secret_name'] });
      expect(await deliver(made.webhook.uid, 'token-one')).toBe(202);
      expect(await deliver(made.webhook.uid, made.secret)).toBe(401);
    });

    it("takes the seed's trigger shape (UIDs) beside the file-name shorthand; both store the same trigger", async () => {
      // A webhook made through the API before the factory's files owned its webhooks.
      const made = await ok('POST', `/api/v1/factories/${factory}/webhooks`, { name: 'pager' });
      const pager = { name: 'pager', auth_mode: 'token', secret_name: 'github-token' };
      const first = await apply({ webhooks: [github, pager], automations: [triage] });
      const uid = first.webhooks[0].uid;
      const seedShape = {
        ...triage,
        triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [uid], payload: { action: ['opened'] } } }],
      };
      // The same trigger in the other shape: nothing to write.
      const same = await apply({ webhooks: [github, pager], automations: [seedShape] });
      expect(same).toMatchObject({ applied: false, version: 1 });
      expect(same.automations).toEqual([expect.objectContaining({ action: 'unchanged' })]);

      // Adopted by its file, the API-made webhook keeps the UID it was made with, which a trigger may name.
      const both = {
        ...triage,
        triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [made.webhook.uid, uid, uid] } }],
      };
      const next = await apply({ webhooks: [github, pager], automations: [both] });
      expect(next.automations).toEqual([expect.objectContaining({ action: 'update', changes: ['triggers'] })]);
      const [automation] = (await ok('GET', `/api/v1/factories/${factory}/automations`)).automations;
      expect(automation.triggers).toEqual([{ provider: 'webhook', event: 'received', filter: { webhook_ids: [made.webhook.uid, uid] } }]);
    });

    it("refuses the seed's trigger shape with an unknown UID, a UID this apply leaves without a file, or another provider or event", async () => {
      const made = await ok('POST', `/api/v1/factories/${factory}/webhooks`, { name: 'pager' });
      const pager = { name: 'pager', auth_mode: 'token', secret_name: 'github-token' };
      const first = await apply({ webhooks: [github, pager], automations: [triage] });
      const uid = first.webhooks[0].uid;
      const before = await snapshot();
      const trigger = (filter: Json, extra: Json = {}) => ({ provider: 'webhook', event: 'received', filter, ...extra });
      const answer = await refused({
        webhooks: [github],
        prune: true,
        automations: [
          {
            ...triage,
            triggers: [
              trigger({ webhook_ids: [uid, 'no-such-webhook'] }),
              trigger({ webhook_ids: [made.webhook.uid] }),
              trigger({ webhook_ids: [uid], payload: { action: { $regex: 'x' } } }),
            ],
          },
        ],
      });
      const byPath = Object.fromEntries(answer.errors.map((e: Json) => [e.path, e.detail]));
      expect(Object.keys(byPath)).toEqual([
        'automations.0.triggers.0.filter.webhook_ids.1',
        'automations.0.triggers.1.filter.webhook_ids.0',
        'automations.0.triggers.2.filter.payload.action.$regex',
      ]);
      expect(byPath['automations.0.triggers.0.filter.webhook_ids.1']).toBe(`no webhook no-such-webhook in factory ${factory}`);
      expect(byPath['automations.0.triggers.1.filter.webhook_ids.0']).toContain('has no file webhooks/pager.yaml');

      // provider and event are the API's own checks, at their paths.
      const shape = await refused({
        webhooks: [github],
        automations: [
          {
            ...triage,
            triggers: [
              { provider: 'github', event: 'received', filter: { webhook_ids: [uid] } },
              { provider: 'webhook', event: 'opened', filter: { webhook_ids: [uid] } },
              trigger({ webhook_ids: [] }),
            ],
          },
        ],
      });
      expect(shape.errors.map((e: Json) => e.path)).toEqual([
        'automations.0.triggers.0.provider',
        'automations.0.triggers.1.event',
        'automations.0.triggers.2.filter.webhook_ids',
      ]);
      expect(shape.errors[0].detail).toContain('must be "webhook"');
      const unknown = await refused({
        webhooks: [github],
        automations: [{ ...triage, triggers: [trigger({ webhook_ids: [uid] }, { colour: 'red' })] }],
      });
      expect(unknown.errors).toEqual([{ path: 'automations.0.triggers.0.colour', detail: 'unknown field' }]);
      expect(await snapshot()).toEqual(before);
    });

    it("an automation file's config.environment_id must name an environment of the team", async () => {
      const before = await snapshot();
      const refusedEnv = await refused({ webhooks: [github], automations: [{ ...triage, config: { environment_id: 'no-such-env' } }] });
      expect(refusedEnv.errors).toEqual([
        { path: 'automations.0.config.environment_id', detail: 'no environment no-such-env in this team' },
      ]);
      expect(await snapshot()).toEqual(before);
      const env = await ok('POST', '/api/v1/environments', { name: 'ci' });
      await apply({ webhooks: [github], automations: [{ ...triage, config: { environment_id: env.id } }] });
      const [automation] = (await ok('GET', `/api/v1/factories/${factory}/automations`)).automations;
      expect(automation.config.environment_id).toBe(env.id);
    });

    it('environment files: create, re-apply unchanged, update, adopt, refuse at their paths, prune; the API leaves them to their files', async () => {
      const web = {
        name: 'web',
        repositories: [{ repository: 'acme/web', ref: 'main' }],
        setup: ['npm ci'],
        variables: { TOKEN: 'github-token' },
      };
      const first = await apply({ environments: [web] });
      expect(first.environments).toEqual([{ name: 'web', action: 'create', id: expect.any(String), changes: [] }]);
      const id = first.environments[0].id;
      const shown = await ok('GET', `/api/v1/environments/${id}`);
      expect(shown).toMatchObject({
        name: 'web',
        factory_uid: factory,
        definition_file: 'environments/web.yaml',
        setup_timeout_seconds: 600,
      });
      expect(shown.repositories).toEqual([{ repository: 'acme/web', ref: 'main', directory: 'web' }]);
      expect((await call('PUT', `/api/v1/environments/${id}`, { name: 'web' })).status).toBe(409);
      expect((await call('DELETE', `/api/v1/environments/${id}`)).status).toBe(409);

      const again = await apply({ environments: [web] });
      expect(again).toMatchObject({ applied: false });
      expect(again.environments[0].action).toBe('unchanged');
      const changed = await apply({ environments: [{ ...web, setup: ['make'], setup_timeout_seconds: 60 }] });
      expect(changed.environments[0]).toEqual({ name: 'web', action: 'update', id, changes: ['setup', 'setup_timeout_seconds'] });

      // An automation file may name it; an API-made environment of a file's name is adopted, keeping its id.
      const made = await ok('POST', '/api/v1/environments', { name: 'tools' });
      const both = await apply({
        environments: [web, { name: 'tools' }],
        automations: [{ name: 'a', prompt: 'p', triggers: [], config: { environment_id: id } }],
      });
      expect(both.environments.map((e: Json) => [e.name, e.action, e.id])).toEqual([
        ['web', 'update', id],
        ['tools', 'adopt', made.id],
      ]);

      const before = await snapshot();
      const bad = await refused({
        environments: [
          { ...web, variables: { TOKEN: 'no-such-secret' } },
          {
            name: 'tools',
            repositories: [
              { repository: 'acme/a', directory: 'x' },
              { repository: 'acme/b', directory: 'x' },
            ],
          },
        ],
        automations: [{ name: 'a', prompt: 'p', triggers: [], config: { environment_id: id } }],
      });
      expect(bad.errors.map((e: Json) => e.path)).toEqual(['environments.0.variables.TOKEN', 'environments.1.repositories.1.directory']);
      const gone = await refused({ environments: [web], automations: [{ name: 'a', prompt: 'p', triggers: [] }] });
      expect(gone.errors).toEqual([{ path: 'environments', detail: expect.stringContaining('has no file environments/tools.yaml') }]);
      expect(await snapshot()).toEqual(before);

      // Pruned: the automation naming a pruned environment is refused, so it goes too.
      const pruned = await apply({ environments: [web], prune: true });
      expect(pruned.environments.map((e: Json) => [e.name, e.action])).toEqual([
        ['web', 'unchanged'],
        ['tools', 'delete'],
      ]);
      expect((await ok('GET', '/api/v1/environments')).environments.map((e: Json) => e.name)).toEqual(['web']);
    });

    it('environment files: an image and limits are kept, compared, cleared and checked at their paths', async () => {
      const boxed = { name: 'boxed', image: 'ghcr.io/acme/agent:2', limits: { memory_mb: 1024, cpus: 0.5, network: 'none' } };
      const first = await apply({ environments: [boxed] });
      const id = first.environments[0].id;
      expect(await ok('GET', `/api/v1/environments/${id}`)).toMatchObject({ image: boxed.image, limits: boxed.limits });
      expect((await apply({ environments: [boxed] })).environments[0].action).toBe('unchanged');
      const changed = await apply({ environments: [{ ...boxed, image: 'ghcr.io/acme/agent:3', limits: { pids: 100 } }] });
      expect(changed.environments[0]).toEqual({ name: 'boxed', action: 'update', id, changes: ['image', 'limits'] });
      expect(await ok('GET', `/api/v1/environments/${id}`)).toMatchObject({ image: 'ghcr.io/acme/agent:3', limits: { pids: 100 } });
      const cleared = await apply({ environments: [{ name: 'boxed' }] });
      expect(cleared.environments[0].changes).toEqual(['image', 'limits']);
      const shown = await ok('GET', `/api/v1/environments/${id}`);
      expect(shown).not.toHaveProperty('image');
      expect(shown).not.toHaveProperty('limits');

      const before = await snapshot();
      const bad = await refused({ environments: [{ name: 'boxed', image: 'Not/An Image', limits: { memory_mb: 1, disk_mb: 5 } }] });
      expect(bad.errors.map((e: Json) => e.path).sort()).toEqual([
        'environments.0.image',
        'environments.0.limits.disk_mb',
        'environments.0.limits.memory_mb',
      ]);
      expect(await snapshot()).toEqual(before);
    });

    it('two concurrent applies never half-apply: the factory ends as one of them says', async () => {
      await putSecret('other-token', 'token-other');
      const a = { webhooks: [github, { name: 'a', secret_name: 'other-token' }], prune: true };
      const b = { webhooks: [github, { name: 'b', secret_name: 'github-token' }], prune: true };
      const answers = await Promise.all([a, b, a, b].map((body) => call('POST', `/api/v1/factories/${factory}/apply`, body)));
      for (const res of answers) expect([200, 409], await res.text()).toContain(res.status);
      const names = (await webhooks()).map((w) => w.name).sort();
      expect([
        ['a', 'github'],
        ['b', 'github'],
      ]).toContainEqual(names);
    });

    it("the store's snapshot, what an apply plans on, is the set with the live webhooks and the automations", async () => {
      const team = `defs-team-${name}`;
      expect(await store.definitions.snapshot(team, factory)).toEqual({ set: undefined, webhooks: [], automations: [] });
      await apply({ webhooks: [github, { name: 'ci', secret_name: 'github-token' }], automations: [triage] });
      await apply({ webhooks: [github], automations: [triage], prune: true });
      const snapshot = await store.definitions.snapshot(team, factory);
      expect(snapshot.webhooks.map((w) => w.name)).toEqual(['github']);
      expect(snapshot).toEqual({
        set: await store.definitions.get(team, factory),
        webhooks: await store.webhooks.list(team, factory),
        automations: await store.automations.list(team, factory),
      });
      expect(snapshot.set).toMatchObject({ version: 2 });
    });

    it('the store refuses a write planned on a stale version, or past the limit, writing nothing', async () => {
      const set = {
        teamUid: 'team-1',
        factoryUid: 'factory-x',
        version: 1,
        appliedAt: '2026-01-01T00:00:00.000Z',
        webhooks: [],
        automations: [],
      };
      const write = {
        set,
        expectedVersion: 0,
        putSecrets: [makeSecret({ name: '~s@w' })],
        deleteSecrets: [],
        putWebhooks: [makeWebhook({ factoryUid: 'factory-x' })],
        putAutomations: [],
        deleteAutomations: [],
        maxWebhooksPerFactory: 20,
      };
      expect(await store.definitions.write({ ...write, maxWebhooksPerFactory: 0 })).toEqual({ applied: false, reason: 'limit' });
      expect(await store.definitions.get('team-1', 'factory-x')).toBeUndefined();
      expect(await store.secrets.get('team-1', '~s@w')).toBeUndefined();
      expect(await store.definitions.write(write)).toEqual({ applied: true });
      expect(await store.definitions.get('team-1', 'factory-x')).toEqual(set);
      const stale = { ...write, putWebhooks: [makeWebhook({ factoryUid: 'factory-x' })], set: { ...set, version: 2 }, expectedVersion: 0 };
      expect(await store.definitions.write(stale)).toEqual({ applied: false, reason: 'stale' });
      expect(await store.webhooks.getByUid(stale.putWebhooks[0]!.uid)).toBeUndefined();
      expect(await store.definitions.write({ ...stale, expectedVersion: 1 })).toEqual({ applied: true });
      expect((await store.webhooks.list('team-1', 'factory-x')).length).toBe(2);
    });
  });
}
