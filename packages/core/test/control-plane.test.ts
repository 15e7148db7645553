import { testPrincipal } from '@agentrun/core/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { createSecretCipher, secretSlot } from '../src/control/secret-cipher.js';
import { expectProblem, type Harness, setup } from './helpers.js';

const KEY = Buffer.alloc(32, 7).toString('base64');
const cipher = createSecretCipher(KEY);

interface WebhookAnswer {
  webhook: { uid: string; secret_name: string; ingress_url: string; enabled: boolean; auth_mode: string };
  ingress_url: string;
  secret?: string;
}

describe('management API', () => {
  let h: Harness;
  let factory: string;
  const base = '/agent'.replace('/agent', '');
  const webhooks = () => `${base}/factories/${factory}/webhooks`;
  const createWebhook = async (body: Record<string, unknown>) => h.json<WebhookAnswer>('POST', webhooks(), { body });
  const sealedValue = async (name: string) => {
    const record = await h.store.secrets.get(h.principal.team_uid, name);
    return record ? cipher.open(record.ciphertext, secretSlot(h.principal.team_uid, name)) : undefined;
  };

  beforeEach(async () => {
    h = await setup({ secretKey: KEY, webhookBaseUrl: 'https://hooks.example.com' });
    const created = await h.json<{ uid: string }>('POST', '/factories', {
      body: { name: 'Acme', foreman_agent_identity_uid: 'foreman-1' },
    });
    expect(created.status).toBe(201);
    factory = created.body.uid;
  });

  describe('factories', () => {
    it('creates, lists and reads factories of the team only', async () => {
      expect((await h.json<{ factories: { uid: string }[] }>('GET', '/factories')).body.factories.map((f) => f.uid)).toEqual([factory]);
      expect((await h.json('GET', `/factories/${factory}`)).body).toMatchObject({
        uid: factory,
        name: 'Acme',
        foreman_agent_identity_uid: 'foreman-1',
      });
      const stranger = await h.keyFor(testPrincipal({ uid: 'u2', team_uid: 'team-2' }));
      await expectProblem(await h.call('GET', `/factories/${factory}`, { key: stranger }), 404, 'not_found');
    });

    it('makes a run sent to the foreman a run of the factory', async () => {
      const run = await h.json<{ run_id: string }>('POST', '/agent/run', { body: { prompt: 'x', agent_identity_uid: 'foreman-1' } });
      await h.json('POST', '/agent/run', { body: { prompt: 'standalone' } });
      const listed = await h.json<{ runs: { run_id: string }[] }>('GET', `/agent/runs?factory_uid=${factory}`);
      expect(listed.body.runs.map((r) => r.run_id)).toEqual([run.body.run_id]);
    });

    it('refuses a second factory with the same foreman', async () => {
      await expectProblem(
        await h.call('POST', '/factories', { body: { name: 'Other', foreman_agent_identity_uid: 'foreman-1' } }),
        409,
        'conflict',
      );
    });
  });

  describe('team secrets', () => {
    it('stores values sealed, lists names and times only, and never returns a value', async () => {
      const put = await h.json('PUT', '/team/secrets/stripe-signing', { body: { value: 'whsec_super_secret' } });
      expect(put.status).toBe(201);
      expect(put.body).toEqual({ name: 'stripe-signing', created_at: expect.any(String), updated_at: expect.any(String) });
      expect((await h.json('PUT', '/team/secrets/stripe-signing', { body: { value: 'whsec_new' } })).status).toBe(200);
      const listed = await h.call('GET', '/team/secrets');
      const text = await listed.text();
      expect(JSON.parse(text)).toEqual({
        secrets: [{ name: 'stripe-signing', created_at: expect.any(String), updated_at: expect.any(String) }],
      });
      expect(text).not.toContain('whsec');
      const stored = await h.store.secrets.get(h.principal.team_uid, 'stripe-signing');
      expect(stored?.ciphertext).not.toContain('whsec');
      expect(await sealedValue('stripe-signing')).toBe('whsec_new');
    });

    it('binds a ciphertext to its secret: moved to another name it does not open', async () => {
      const sealed = await cipher.seal('value', secretSlot('team-1', 'a'));
      await expect(cipher.open(sealed, secretSlot('team-1', 'b'))).rejects.toThrow();
      await expect(cipher.open(sealed.slice(0, -2) + (sealed.endsWith('A') ? 'BB' : 'AA'), secretSlot('team-1', 'a'))).rejects.toThrow();
      expect(await cipher.open(sealed, secretSlot('team-1', 'a'))).toBe('value');
    });

    it('refuses a key that is not 32 bytes', () => {
      expect(() => createSecretCipher('short')).toThrow(TypeError);
      expect(() => createSecretCipher(new Uint8Array(16))).toThrow(TypeError);
      expect(() => createSecretCipher('ab'.repeat(32))).not.toThrow();
    });

    it('answers 503 saying why when no key is configured', async () => {
      const keyless = await setup();
      const p = await expectProblem(await keyless.call('PUT', '/team/secrets/x', { body: { value: 'v' } }), 503, 'unavailable');
      expect(p.detail).toMatch(/secretKey/);
    });

    it('deletes a secret, but not one a live webhook uses', async () => {
      const created = await createWebhook({ name: 'CI' });
      await expectProblem(await h.call('DELETE', `/team/secrets/${created.body.webhook.secret_name}`), 409, 'conflict');
      await h.json('PUT', '/team/secrets/spare', { body: { value: 'v' } });
      expect((await h.call('DELETE', '/team/secrets/spare')).status).toBe(204);
      await expectProblem(await h.call('DELETE', '/team/secrets/spare'), 404, 'not_found');
    });

    it('names bad secret names', async () => {
      const p = await expectProblem(await h.call('PUT', '/team/secrets/bad%20name', { body: { value: 'v' } }), 400, 'invalid_request');
      expect(p.detail).toMatch(/secret name/);
    });
  });

  describe('webhooks', () => {
    it('creates a bearer webhook and shows its generated secret once', async () => {
      const created = await createWebhook({ name: 'GitHub CI' });
      expect(created.status).toBe(201);
      const { webhook, secret, ingress_url } = created.body;
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(ingress_url).toBe(`https://hooks.example.com/webhooks/w/${webhook.uid}`);
      expect(webhook).toMatchObject({ auth_mode: 'token', enabled: true, secret_name: expect.stringMatching(/^webhook-github-ci-/) });
      expect(await sealedValue(webhook.secret_name)).toBe(secret);
      const read = await h.call('GET', `${webhooks()}/${webhook.uid}`);
      expect(await read.text()).not.toContain(secret as string);
      const listed = await h.json<{ webhooks: unknown[] }>('GET', webhooks());
      expect(listed.body.webhooks).toHaveLength(1);
    });

    it('puts a URL token in the URL at creation and {token} everywhere after', async () => {
      const { body } = await createWebhook({ name: 'Cron', auth_mode: 'url_token' });
      expect(body.ingress_url).toBe(`https://hooks.example.com/webhooks/w/${body.webhook.uid}/${body.secret}`);
      expect(body.webhook.ingress_url).toBe(`https://hooks.example.com/webhooks/w/${body.webhook.uid}/{token}`);
      const read = await h.json<{ ingress_url: string }>('GET', `${webhooks()}/${body.webhook.uid}`);
      expect(read.body.ingress_url).toMatch(/\/\{token\}$/);
    });

    it('generates a whsec_ secret for Standard Webhooks, and none for a provider that issues its own', async () => {
      const standard = await createWebhook({ name: 'Svix', auth_mode: 'signature', signature_scheme: 'standard-webhooks' });
      expect(standard.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const github = await createWebhook({ name: 'GitHub', auth_mode: 'signature', signature_scheme: 'github' });
      expect(github.body.secret).toBeUndefined();
      expect(await sealedValue(github.body.webhook.secret_name)).toBeUndefined();
      const uid = github.body.webhook.uid;
      expect((await h.call('PUT', `${webhooks()}/${uid}/provider-secret`, { body: { secret: 'gh-issued' } })).status).toBe(200);
      expect(await sealedValue(github.body.webhook.secret_name)).toBe('gh-issued');
      const supplied = await createWebhook({
        name: 'Stripe',
        auth_mode: 'signature',
        signature_scheme: 'stripe',
        provider_secret: 'whsec_from_stripe',
      });
      expect(supplied.body.secret).toBeUndefined();
      expect(await sealedValue(supplied.body.webhook.secret_name)).toBe('whsec_from_stripe');
    });

    it('reuses a named team secret without showing it, and refuses an unknown or non-URL-safe one', async () => {
      await h.json('PUT', '/team/secrets/shared', { body: { value: 'plain-token_1.2~3' } });
      const reused = await createWebhook({ name: 'A', secret_name: 'shared' });
      expect(reused.status).toBe(201);
      expect(reused.body.secret).toBeUndefined();
      const unknown = await expectProblem(
        await h.call('POST', webhooks(), { body: { name: 'B', secret_name: 'nope' } }),
        400,
        'invalid_request',
      );
      expect(unknown.detail).toMatch(/secret_name.*nope/);
      await h.json('PUT', '/team/secrets/spaced', { body: { value: 'has space/and slash' } });
      const unsafe = await expectProblem(
        await h.call('POST', webhooks(), { body: { name: 'C', auth_mode: 'url_token', secret_name: 'spaced' } }),
        400,
        'invalid_request',
      );
      expect(unsafe.detail).toMatch(/URL-safe/);
      expect((await createWebhook({ name: 'D', auth_mode: 'url_token', secret_name: 'shared' })).status).toBe(201);
    });

    it('names what is wrong in a bad webhook', async () => {
      for (const [body, pattern] of [
        [{ name: 'x', auth_mode: 'basic' }, /auth_mode/],
        [{ name: 'x', auth_mode: 'signature' }, /signature_scheme/],
        [{ name: 'x', auth_mode: 'signature', signature_scheme: 'paypal' }, /signature_scheme/],
        [{ name: 'x', provider_secret: 's' }, /provider_secret/],
        [{ name: '' }, /name/],
        [{ name: 'x', delivery_id_header: 'bad header' }, /delivery_id_header/],
      ] as const) {
        const p = await expectProblem(await h.call('POST', webhooks(), { body }), 400, 'invalid_request');
        expect(p.detail).toMatch(pattern);
      }
      expect(await h.store.webhooks.list(h.principal.team_uid, factory)).toHaveLength(0);
    });

    it('allows 20 webhooks per factory; the 21st is a 409 that creates nothing', async () => {
      for (let i = 0; i < 20; i++) expect((await createWebhook({ name: `w${i}` })).status).toBe(201);
      const before = (await h.store.secrets.list(h.principal.team_uid)).length;
      await expectProblem(await h.call('POST', webhooks(), { body: { name: 'w21' } }), 409, 'conflict');
      expect(await h.store.webhooks.list(h.principal.team_uid, factory)).toHaveLength(20);
      expect(await h.store.secrets.list(h.principal.team_uid)).toHaveLength(before);
    });

    it('toggles, rotates (the old secret is replaced at once) and deletes', async () => {
      const { body } = await createWebhook({ name: 'CI' });
      const uid = body.webhook.uid;
      const off = await h.json<{ enabled: boolean }>('PATCH', `${webhooks()}/${uid}`, {
        body: { enabled: false, delivery_id_header: 'X-Event-Id' },
      });
      expect(off.body).toMatchObject({ enabled: false, delivery_id_header: 'X-Event-Id' });
      const rotated = await h.json<WebhookAnswer>('POST', `${webhooks()}/${uid}/rotate-secret`);
      expect(rotated.body.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(rotated.body.secret).not.toBe(body.secret);
      expect(await sealedValue(body.webhook.secret_name)).toBe(rotated.body.secret);
      expect((await h.call('DELETE', `${webhooks()}/${uid}`)).status).toBe(204);
      await expectProblem(await h.call('GET', `${webhooks()}/${uid}`), 404, 'not_found');
      await expectProblem(await h.call('POST', `${webhooks()}/${uid}/rotate-secret`), 404, 'not_found');
      expect((await h.store.webhooks.getByUid(uid))?.deletedAt).toEqual(expect.any(String));
    });

    it("rotates a provider-issued secret to the provider's new one, given in the request", async () => {
      const gh = await createWebhook({ name: 'GitHub', auth_mode: 'signature', signature_scheme: 'github', provider_secret: 'old' });
      const rotate = `${webhooks()}/${gh.body.webhook.uid}/rotate-secret`;
      const missing = await expectProblem(await h.call('POST', rotate), 400, 'invalid_request');
      expect(missing.detail).toMatch(/secret: required: github issues its own/);
      const rotated = await h.json<WebhookAnswer>('POST', rotate, { body: { secret: 'new' } });
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).toBe('new');
      expect(await sealedValue(gh.body.webhook.secret_name)).toBe('new');
      // A generated secret takes no body: the server makes the new one.
      const token = await createWebhook({ name: 'Generated' });
      await expectProblem(await h.call('POST', `${webhooks()}/${token.body.webhook.uid}/rotate-secret`, { body: { secret: 'mine' } }), 400);
    });

    it('refuses a provider secret for a token webhook', async () => {
      const token = await createWebhook({ name: 'CI' });
      await expectProblem(
        await h.call('PUT', `${webhooks()}/${token.body.webhook.uid}/provider-secret`, { body: { secret: 's' } }),
        409,
        'conflict',
      );
    });

    it('needs manage_factory for every change, and lets the team read', async () => {
      const { body } = await createWebhook({ name: 'CI' });
      const reader = await h.keyFor(testPrincipal({ uid: 'reader', permissions: [] }));
      const uid = body.webhook.uid;
      for (const [method, path, payload] of [
        ['POST', '/factories', { name: 'x' }],
        ['PUT', '/team/secrets/x', { value: 'v' }],
        ['DELETE', '/team/secrets/x', undefined],
        ['POST', webhooks(), { name: 'x' }],
        ['PATCH', `${webhooks()}/${uid}`, { enabled: false }],
        ['DELETE', `${webhooks()}/${uid}`, undefined],
        ['POST', `${webhooks()}/${uid}/rotate-secret`, undefined],
        ['PUT', `${webhooks()}/${uid}/provider-secret`, { secret: 's' }],
        ['POST', `/factories/${factory}/automations`, { name: 'a', prompt: 'p', triggers: [] }],
      ] as const) {
        await expectProblem(await h.call(method, path, { key: reader, ...(payload ? { body: payload } : {}) }), 403, 'forbidden');
      }
      expect((await h.call('GET', webhooks(), { key: reader })).status).toBe(200);
      expect((await h.call('GET', '/team/secrets', { key: reader })).status).toBe(200);
      expect((await h.store.webhooks.get(h.principal.team_uid, factory, uid))?.enabled).toBe(true);
    });
  });

  describe('automations', () => {
    let hook: string;
    const automations = () => `/factories/${factory}/automations`;
    beforeEach(async () => {
      hook = (await createWebhook({ name: 'GitHub' })).body.webhook.uid;
    });
    const trigger = (payload?: unknown, ids = [hook]) => ({
      provider: 'webhook',
      event: 'received',
      filter: { webhook_ids: ids, ...(payload !== undefined ? { payload } : {}) },
    });

    it('creates, reads, changes and deletes an automation', async () => {
      const created = await h.json<{ id: string }>('POST', automations(), {
        body: { name: 'Triage', prompt: 'Triage it', triggers: [trigger({ action: ['opened'] })] },
      });
      expect(created.status).toBe(201);
      const id = created.body.id;
      expect((await h.json('GET', `${automations()}/${id}`)).body).toMatchObject({
        name: 'Triage',
        enabled: true,
        triggers: [trigger({ action: ['opened'] })],
      });
      const patched = await h.json('PATCH', `${automations()}/${id}`, { body: { enabled: false, name: 'Renamed' } });
      expect(patched.body).toMatchObject({ enabled: false, name: 'Renamed', prompt: 'Triage it' });
      expect((await h.json<{ automations: unknown[] }>('GET', automations())).body.automations).toHaveLength(1);
      expect((await h.call('DELETE', `${automations()}/${id}`)).status).toBe(204);
      await expectProblem(await h.call('GET', `${automations()}/${id}`), 404, 'not_found');
    });

    it('names an unknown webhook and an invalid filter by path, and creates nothing', async () => {
      const unknown = await expectProblem(
        await h.call('POST', automations(), { body: { name: 'a', prompt: 'p', triggers: [trigger(undefined, [hook, 'nope'])] } }),
        400,
        'invalid_request',
      );
      expect(unknown.detail).toMatch(/triggers\.0\.filter\.webhook_ids\.1/);
      const invalid = await expectProblem(
        await h.call('POST', automations(), { body: { name: 'a', prompt: 'p', triggers: [trigger({ action: 'opened' })] } }),
        400,
        'invalid_request',
      );
      expect(invalid.detail).toMatch(/triggers\.0\.filter\.payload\.action/);
      expect(await h.store.automations.list(h.principal.team_uid, factory)).toHaveLength(0);
    });

    it('keeps an automation whose webhook was deleted visible', async () => {
      const { body } = await h.json<{ id: string }>('POST', automations(), { body: { name: 'a', prompt: 'p', triggers: [trigger()] } });
      await h.call('DELETE', `${webhooks()}/${hook}`);
      expect((await h.json('GET', `${automations()}/${body.id}`)).body).toMatchObject({ triggers: [trigger()] });
    });

    it('tests a filter against an inline delivery: webhook check and payload check with the failing path', async () => {
      const { body } = await h.json<{ id: string }>('POST', automations(), {
        body: { name: 'a', prompt: 'p', triggers: [trigger({ action: ['opened'], pull_request: { base: { ref: ['main'] } } })] },
      });
      const test = (payload: unknown, webhook_uid = hook) =>
        h.json<{ result: string; webhook_check: { passed: boolean; detail: string }; payload_check: { passed: boolean; detail: string } }>(
          'POST',
          `${automations()}/${body.id}/test-filter`,
          { body: { webhook_uid, payload } },
        );
      const yes = await test({ action: 'opened', pull_request: { base: { ref: 'main' } } });
      expect(yes.body).toMatchObject({ result: 'Would trigger', webhook_check: { passed: true }, payload_check: { passed: true } });
      const no = await test({ action: 'opened', pull_request: { base: { ref: 'develop' } } });
      expect(no.body).toMatchObject({ result: 'Would not trigger', webhook_check: { passed: true }, payload_check: { passed: false } });
      expect(no.body.payload_check.detail).toMatch(/pull_request\.base\.ref/);
      const otherHook = await test({ action: 'opened', pull_request: { base: { ref: 'main' } } }, 'another-webhook');
      expect(otherHook.body).toMatchObject({ result: 'Would not trigger', webhook_check: { passed: false } });
    });

    it('fails the webhook check for a selected webhook that is disabled or deleted', async () => {
      const { body } = await h.json<{ id: string }>('POST', automations(), { body: { name: 'a', prompt: 'p', triggers: [trigger()] } });
      const test = () =>
        h.json<{ result: string; webhook_check: { passed: boolean; detail: string } }>('POST', `${automations()}/${body.id}/test-filter`, {
          body: { webhook_uid: hook, payload: {} },
        });
      expect((await test()).body.result).toBe('Would trigger');
      await h.call('PATCH', `${webhooks()}/${hook}`, { body: { enabled: false } });
      const disabled = await test();
      expect(disabled.body).toMatchObject({ result: 'Would not trigger', webhook_check: { passed: false } });
      expect(disabled.body.webhook_check.detail).toMatch(/disabled/);
      await h.call('PATCH', `${webhooks()}/${hook}`, { body: { enabled: true } });
      await h.call('DELETE', `${webhooks()}/${hook}`);
      const deleted = await test();
      expect(deleted.body).toMatchObject({ result: 'Would not trigger', webhook_check: { passed: false } });
      expect(deleted.body.webhook_check.detail).toMatch(/deleted/);
    });
  });

  describe('secrets a webhook can use, and delivery ID headers', () => {
    it.each([
      'Authorization',
      'Proxy-Authorization',
      'Cookie',
      'X-Gitlab-Token',
      'X-Hub-Signature-256',
      'Stripe-Signature',
      'X-Api-Key',
      'X-Shopify-Hmac-Sha256',
    ])('refuses %s as a delivery_id_header, on create and on change', async (header) => {
      const created = await expectProblem(await h.call('POST', webhooks(), { body: { name: 'w', delivery_id_header: header } }), 400);
      expect(created.detail).toMatch(/delivery_id_header: .* carries credentials/);
      const ok = await createWebhook({ name: 'w', delivery_id_header: 'X-Event-Id' });
      expect(ok.status).toBe(201);
      await expectProblem(await h.call('PATCH', `${webhooks()}/${ok.body.webhook.uid}`, { body: { delivery_id_header: header } }), 400);
      expect((await h.json<{ delivery_id_header: string }>('GET', `${webhooks()}/${ok.body.webhook.uid}`)).body.delivery_id_header).toBe(
        'X-Event-Id',
      );
    });

    it('refuses a bearer webhook on a secret with spaces, and a secret update that would break any webhook using it', async () => {
      await h.call('PUT', '/team/secrets/spaced', { body: { value: 'has a space' } });
      const refused = await expectProblem(await h.call('POST', webhooks(), { body: { name: 'w', secret_name: 'spaced' } }), 400);
      expect(refused.detail).toMatch(/Authorization: Bearer/);

      await h.call('PUT', '/team/secrets/shared', { body: { value: 'url-safe-token' } });
      const url = await createWebhook({ name: 'u', auth_mode: 'url_token', secret_name: 'shared' });
      const bearer = await createWebhook({ name: 'b', secret_name: 'shared' });
      expect([url.status, bearer.status]).toEqual([201, 201]);
      const notUrlSafe = await expectProblem(await h.call('PUT', '/team/secrets/shared', { body: { value: 'a/b?c' } }), 400);
      expect(notUrlSafe.detail).toMatch(new RegExp(`webhook ${url.body.webhook.uid}`));
      const spaced = await expectProblem(await h.call('PUT', '/team/secrets/shared', { body: { value: 'a b' } }), 400);
      expect(spaced.detail).toMatch(/uses this secret/);
      expect(await sealedValue('shared')).toBe('url-safe-token');
      expect((await h.call('PUT', '/team/secrets/shared', { body: { value: 'another-url-safe-token' } })).status).toBe(200);
    });
  });
});
