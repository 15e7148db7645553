import { createHmac } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryRecord } from '../src/ingress/records.js';
import { EVENT_PAYLOAD_FILE } from '../src/ingress/webhook-run.js';
import { expectProblem, type Harness, manualClock, setup, T0 } from './helpers.js';

const KEY = Buffer.alloc(32, 9).toString('base64');
const ORIGIN = 'http://agentrun.test';

interface Created {
  webhook: { uid: string; secret_name: string };
  ingress_url: string;
  secret?: string;
}

describe('webhook ingress', () => {
  let h: Harness;
  let factory: string;
  // Every reading advances 1 ms, so log entries have a real order.
  const clock = manualClock(T0, 1);

  const createWebhook = async (body: Record<string, unknown>) =>
    (await h.json<Created>('POST', `/factories/${factory}/webhooks`, { body })).body;
  const automation = async (webhookUid: string, payload?: unknown, extra: Record<string, unknown> = {}) =>
    (
      await h.json<{ id: string }>('POST', `/factories/${factory}/automations`, {
        body: {
          name: 'Triage',
          prompt: 'Triage the event.',
          triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [webhookUid], ...(payload ? { payload } : {}) } }],
          ...extra,
        },
      })
    ).body.id;
  const deliver = (path: string, body: BodyInit | undefined, headers: Record<string, string> = {}, method = 'POST') => {
    const init: RequestInit & { duplex?: 'half' } = { method, headers };
    if (body !== undefined) init.body = body;
    if (body instanceof ReadableStream) init.duplex = 'half';
    return h.handler(new Request(`${ORIGIN}${path}`, init));
  };
  const path = (uid: string, token?: string) => `/webhooks/w/${uid}${token ? `/${token}` : ''}`;
  const log = async (uid: string) =>
    (await h.json<{ deliveries: DeliveryRecord[] }>('GET', `/factories/${factory}/webhooks/${uid}/deliveries?limit=100`)).body.deliveries;
  const statuses = async (uid: string) => (await h.store.deliveries.list(h.principal.team_uid, uid, { limit: 500 })).map((d) => d.status);

  beforeEach(async () => {
    clock.set(T0);
    h = await setup({ secretKey: KEY, clock });
    factory = (await h.json<{ uid: string }>('POST', '/factories', { body: { name: 'Acme' } })).body.uid;
  });

  describe('outcomes: answers and delivery log labels', () => {
    it('Accepted: 202 { delivery_id }, a run per matching enabled automation with the payload attached byte-exact', async () => {
      const { webhook, secret } = await createWebhook({ name: 'CI' });
      const matching = await automation(webhook.uid, { action: ['opened'] });
      await automation(webhook.uid, { action: ['closed'] });
      await automation(webhook.uid, undefined, { enabled: false });
      const body = '{"action":"opened","n":1.0,"text":"\\u00e9"}';
      const res = await deliver(path(webhook.uid), body, { authorization: `Bearer ${secret}` });
      expect(res.status).toBe(202);
      const { delivery_id } = (await res.json()) as { delivery_id: string };
      // Its runs are made after the 202 (docs/webhooks.md, "When runs start").
      expect(await h.evaluated()).toBe(1);
      const runs = (
        await h.json<{ runs: { run_id: string; prompt: string; source: string; trigger: unknown }[] }>('GET', '/agent/runs?source=WEBHOOK')
      ).body.runs;
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({
        source: 'WEBHOOK',
        trigger: { factory_uid: factory, automation_id: matching, webhook_uid: webhook.uid, delivery_id },
      });
      expect(runs[0]?.prompt).toMatch(/^Triage the event\.\n/);
      expect(runs[0]?.prompt).toContain(`"CI" (UID ${webhook.uid}), delivery ID ${delivery_id}`);
      expect(runs[0]?.prompt).toMatch(/untrusted/);
      const file = await h.call('GET', `/agent/runs/${runs[0]?.run_id}/attachments/${EVENT_PAYLOAD_FILE}`);
      expect(await file.text()).toBe(body);
      expect(await statuses(webhook.uid)).toEqual(['Accepted']);
    });

    it('Accepted with no automation matching: 202 and no run', async () => {
      const { webhook, secret } = await createWebhook({ name: 'CI' });
      await automation(webhook.uid, { action: ['closed'] });
      expect((await deliver(path(webhook.uid), '{"action":"opened"}', { authorization: `Bearer ${secret}` })).status).toBe(202);
      expect((await h.json<{ runs: unknown[] }>('GET', '/agent/runs')).body.runs).toHaveLength(0);
      expect(await statuses(webhook.uid)).toEqual(['Accepted']);
    });

    it('Duplicate: the same identity again is 202, starts nothing and is logged Duplicate', async () => {
      const { webhook, secret } = await createWebhook({ name: 'CI' });
      await automation(webhook.uid);
      const auth = { authorization: `Bearer ${secret}` };
      expect((await deliver(path(webhook.uid), '{"a":1,"b":2}', auth)).status).toBe(202);
      // Same canonical JSON (other key order), no delivery ID header: the body hash is the identity.
      const again = await deliver(path(webhook.uid), '{"b":2,"a":1}', auth);
      expect(again.status).toBe(202);
      expect(await again.json()).toEqual({ delivery_id: expect.any(String) });
      expect(await h.evaluated()).toBe(1); // the duplicate awaits no evaluation
      expect((await h.json<{ runs: unknown[] }>('GET', '/agent/runs')).body.runs).toHaveLength(1);
      expect(await statuses(webhook.uid)).toEqual(['Duplicate', 'Accepted']);
      // A sender's own delivery ID makes equal bodies distinct deliveries.
      expect((await deliver(path(webhook.uid), '{"a":1,"b":2}', { ...auth, 'x-acme-delivery-id': 'evt-2' })).status).toBe(202);
      await h.evaluated();
      expect((await h.json<{ runs: unknown[] }>('GET', '/agent/runs')).body.runs).toHaveLength(2);
    });

    it('Rejected (auth): 401 for a wrong, missing or stale credential, logged without payload', async () => {
      const { webhook, secret } = await createWebhook({ name: 'CI' });
      expect((await deliver(path(webhook.uid), '{}', { authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await deliver(path(webhook.uid), '{}')).status).toBe(401);
      await h.call('POST', `/factories/${factory}/webhooks/${webhook.uid}/rotate-secret`);
      expect((await deliver(path(webhook.uid), '{}', { authorization: `Bearer ${secret}` })).status).toBe(401);
      const entries = await h.store.deliveries.list(h.principal.team_uid, webhook.uid, { limit: 10 });
      expect(entries.map((d) => [d.status, d.payload])).toEqual([
        ['Rejected (auth)', null],
        ['Rejected (auth)', null],
        ['Rejected (auth)', null],
      ]);
    });

    it('Rejected (invalid JSON): 400 for bad JSON, invalid UTF-8, an empty body and absurd nesting', async () => {
      const { webhook, secret } = await createWebhook({ name: 'CI' });
      const auth = { authorization: `Bearer ${secret}` };
      for (const body of ['{"a":', new Uint8Array([0x7b, 0xff, 0x7d]), '', '['.repeat(100_000) + ']'.repeat(100_000)]) {
        await expectProblem(await deliver(path(webhook.uid), body, auth), 400, 'invalid_request');
      }
      expect(await statuses(webhook.uid)).toEqual(Array(4).fill('Rejected (invalid JSON)'));
    });

    it('Rejected (too large): 413 past 262,144 bytes, exact at the boundary, reading stopped at the limit', async () => {
      const { webhook, secret } = await createWebhook({ name: 'CI' });
      const auth = { authorization: `Bearer ${secret}` };
      const json = (size: number) => `"${'x'.repeat(size - 2)}"`;
      expect((await deliver(path(webhook.uid), json(262_144), auth)).status).toBe(202);
      await expectProblem(await deliver(path(webhook.uid), json(262_145), auth), 413, 'payload_too_large');
      // A stream that never ends is cut off at the limit.
      let pulled = 0;
      const endless = new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled += 65_536;
          controller.enqueue(new Uint8Array(65_536).fill(0x20));
        },
      });
      await expectProblem(await deliver(path(webhook.uid), endless, auth), 413, 'payload_too_large');
      expect(pulled).toBeLessThan(262_144 + 3 * 65_536);
      expect(await statuses(webhook.uid)).toEqual(['Rejected (too large)', 'Rejected (too large)', 'Accepted']);
    });

    it('404 for an unknown, disabled or deleted webhook and a wrong path, not logged', async () => {
      const { webhook, secret } = await createWebhook({ name: 'CI' });
      const auth = { authorization: `Bearer ${secret}` };
      await expectProblem(await deliver(path('nope'), '{}', auth), 404, 'not_found');
      await expectProblem(await deliver(path(webhook.uid, 'extra'), '{}', auth), 404, 'not_found');
      await h.call('PATCH', `/factories/${factory}/webhooks/${webhook.uid}`, { body: { enabled: false } });
      await expectProblem(await deliver(path(webhook.uid), '{}', auth), 404, 'not_found');
      await h.call('PATCH', `/factories/${factory}/webhooks/${webhook.uid}`, { body: { enabled: true } });
      expect((await deliver(path(webhook.uid), '{}', auth)).status).toBe(202);
      await h.call('DELETE', `/factories/${factory}/webhooks/${webhook.uid}`);
      await expectProblem(await deliver(path(webhook.uid), '{}', auth), 404, 'not_found');
      expect(await statuses(webhook.uid)).toEqual(['Accepted']);
    });

    it('405 with Allow for other methods', async () => {
      const { webhook } = await createWebhook({ name: 'CI' });
      const res = await deliver(path(webhook.uid), undefined, {}, 'GET');
      await expectProblem(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')).toBe('POST');
    });
  });

  describe('authentication modes', () => {
    it('URL token: the token is the last path segment; a wrong or missing one is 401, not 404', async () => {
      const { webhook, secret } = await createWebhook({ name: 'Cron', auth_mode: 'url_token' });
      expect((await deliver(path(webhook.uid, secret), '{}')).status).toBe(202);
      expect((await deliver(path(webhook.uid, 'wrong'), '{}')).status).toBe(401);
      expect((await deliver(path(webhook.uid), '{}')).status).toBe(401);
    });

    it('GitHub signature over the exact bytes, with X-GitHub-Delivery as identity', async () => {
      const { webhook } = await createWebhook({ name: 'GitHub', auth_mode: 'signature', signature_scheme: 'github' });
      const body = '{"action":"opened"}';
      const sign = (secret: string, b: string) => `sha256=${createHmac('sha256', secret).update(b).digest('hex')}`;
      // No secret supplied yet: everything fails closed.
      expect((await deliver(path(webhook.uid), body, { 'x-hub-signature-256': sign('', body) })).status).toBe(401);
      await h.call('PUT', `/factories/${factory}/webhooks/${webhook.uid}/provider-secret`, { body: { secret: 'gh-secret' } });
      const headers = { 'x-hub-signature-256': sign('gh-secret', body), 'x-github-delivery': 'd-1' };
      expect((await deliver(path(webhook.uid), body, headers)).status).toBe(202);
      expect((await deliver(path(webhook.uid), `${body} `, headers)).status).toBe(401);
      expect((await deliver(path(webhook.uid), body, { 'x-github-delivery': 'd-2' })).status).toBe(401);
      // Same provider delivery ID, same body: a duplicate.
      expect((await deliver(path(webhook.uid), body, headers)).status).toBe(202);
      expect(await statuses(webhook.uid)).toEqual(['Duplicate', 'Rejected (auth)', 'Rejected (auth)', 'Accepted', 'Rejected (auth)']);
      const accepted = (await h.store.deliveries.list(h.principal.team_uid, webhook.uid, { limit: 10 })).find(
        (d) => d.status === 'Accepted',
      );
      expect(accepted?.identity).toBe('p:d-1');
    });
  });

  describe('limits', () => {
    it('the 61st delivery in a minute is the first 429, with Retry-After, not logged; a slot frees as the window slides', async () => {
      const { webhook, secret } = await createWebhook({ name: 'CI' });
      const auth = { authorization: `Bearer ${secret}` };
      for (let i = 0; i < 60; i++) {
        clock.set(T0 + i * 100);
        expect((await deliver(path(webhook.uid), `{"i":${i}}`, auth)).status).toBe(202);
      }
      clock.set(T0 + 10_000);
      const limited = await deliver(path(webhook.uid), '{"i":60}', auth);
      await expectProblem(limited, 429, 'rate_limited');
      expect(limited.headers.get('retry-after')).toBe('50');
      expect(await statuses(webhook.uid)).toHaveLength(60);
      clock.set(T0 + 60_000);
      expect((await deliver(path(webhook.uid), '{"i":61}', auth)).status).toBe(202);
    });

    it('the delivery rate is judged before JSON and identity (checks 6, 7, 8): invalid JSON and duplicates take slots, and past the limit both are 429, not logged', async () => {
      const { webhook, secret } = await createWebhook({ name: 'CI' });
      const auth = { authorization: `Bearer ${secret}` };
      expect((await deliver(path(webhook.uid), '{"id":1}', auth)).status).toBe(202);
      expect((await deliver(path(webhook.uid), '{"id":1}', auth)).status).toBe(202); // Duplicate
      expect((await deliver(path(webhook.uid), '{oops', auth)).status).toBe(400); // Rejected (invalid JSON)
      for (let i = 0; i < 57; i++) expect((await deliver(path(webhook.uid), `{"n":${i}}`, auth)).status).toBe(202);
      await expectProblem(await deliver(path(webhook.uid), '{oops', auth), 429, 'rate_limited');
      await expectProblem(await deliver(path(webhook.uid), '{"id":1}', auth), 429, 'rate_limited');
      const logged = await statuses(webhook.uid);
      expect(logged).toHaveLength(60);
      expect(logged.filter((s) => s === 'Duplicate')).toHaveLength(1);
      expect(logged.filter((s) => s === 'Rejected (invalid JSON)')).toHaveLength(1);
    });

    it('failed authentications have their own budget: past 20 a minute, 429 and nothing is logged', async () => {
      const { webhook, secret } = await createWebhook({ name: 'CI' });
      for (let i = 0; i < 20; i++) expect((await deliver(path(webhook.uid), '{}', { authorization: 'Bearer wrong' })).status).toBe(401);
      const limited = await deliver(path(webhook.uid), '{}', { authorization: 'Bearer wrong' });
      await expectProblem(limited, 429, 'rate_limited');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      // While the budget is spent, even the right credential waits (check 2 comes before check 3).
      await expectProblem(await deliver(path(webhook.uid), '{}', { authorization: `Bearer ${secret}` }), 429, 'rate_limited');
      expect(await statuses(webhook.uid)).toHaveLength(20);
      clock.advance(60_000);
      expect((await deliver(path(webhook.uid), '{}', { authorization: `Bearer ${secret}` })).status).toBe(202);
    });

    it('an oversize body from an unauthenticated signature sender counts against the failed-auth budget', async () => {
      const { webhook } = await createWebhook({ name: 'GitHub', auth_mode: 'signature', signature_scheme: 'github', provider_secret: 's' });
      const big = 'x'.repeat(262_145);
      for (let i = 0; i < 20; i++) expect((await deliver(path(webhook.uid), big)).status).toBe(413);
      await expectProblem(await deliver(path(webhook.uid), big), 429, 'rate_limited');
      expect(await statuses(webhook.uid)).toHaveLength(20);
    });
  });

  it('the management API shows the log newest first, with the payload of accepted entries only', async () => {
    const { webhook, secret } = await createWebhook({ name: 'CI' });
    await deliver(path(webhook.uid), '{"ok":true}', { authorization: `Bearer ${secret}` });
    clock.advance(1000);
    await deliver(path(webhook.uid), '{}', { authorization: 'Bearer wrong' });
    const entries = (await log(webhook.uid)) as unknown as { delivery_id: string; status: string }[];
    expect(entries.map((d) => d.status)).toEqual(['Rejected (auth)', 'Accepted']);
    const one = (id: string) =>
      h.json<{ payload?: unknown; status: string }>('GET', `/factories/${factory}/webhooks/${webhook.uid}/deliveries/${id}`);
    expect((await one(entries[1]?.delivery_id as string)).body).toMatchObject({ status: 'Accepted', payload: { ok: true } });
    expect((await one(entries[0]?.delivery_id as string)).body).not.toHaveProperty('payload');
    await expectProblem(
      await h.call('GET', `/factories/${factory}/webhooks/${webhook.uid}/deliveries?cursor=garbage`),
      400,
      'invalid_request',
    );

    // Test filter against the stored delivery.
    const id = await automation(webhook.uid, { ok: [false] });
    const tested = await h.json<{ result: string; payload_check: { detail: string } }>(
      'POST',
      `/factories/${factory}/automations/${id}/test-filter`,
      {
        body: { delivery_id: entries[1]?.delivery_id },
      },
    );
    expect(tested.body).toMatchObject({ result: 'Would not trigger', payload_check: { detail: expect.stringMatching(/^ok/) } });
    await expectProblem(
      await h.call('POST', `/factories/${factory}/automations/${id}/test-filter`, { body: { delivery_id: entries[0]?.delivery_id } }),
      409,
      'conflict',
    );
  });

  it('pages the log by cursor, newest first', async () => {
    const { webhook, secret } = await createWebhook({ name: 'CI' });
    for (let i = 0; i < 5; i++) await deliver(path(webhook.uid), `{"i":${i}}`, { authorization: `Bearer ${secret}` });
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page++) {
      const res = await h.json<{ deliveries: { delivery_id: string }[]; page_info: { has_next_page: boolean; next_cursor?: string } }>(
        'GET',
        `/factories/${factory}/webhooks/${webhook.uid}/deliveries?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...res.body.deliveries.map((d) => d.delivery_id));
      if (!res.body.page_info.has_next_page) break;
      cursor = res.body.page_info.next_cursor;
    }
    const all = (await h.store.deliveries.list(h.principal.team_uid, webhook.uid, { limit: 10 })).map((d) => d.id);
    expect(seen).toEqual(all);
    expect(seen).toHaveLength(5);
  });
});

describe('delivery log retention', () => {
  it('sweeps entries older than 7 days beyond the newest 50 of each webhook, by maintenance (not by traffic)', async () => {
    const clock = manualClock(T0, 1);
    const h = await setup({ secretKey: KEY, clock });
    const factory = (await h.json<{ uid: string }>('POST', '/factories', { body: { name: 'Acme' } })).body.uid;
    const { webhook } = (await h.json<Created>('POST', `/factories/${factory}/webhooks`, { body: { name: 'CI' } })).body;
    // 60 old rejected entries, eight days ago.
    for (let i = 0; i < 60; i++) {
      await h.handler(
        new Request(`${ORIGIN}/webhooks/w/${webhook.uid}`, { method: 'POST', headers: { authorization: 'Bearer wrong' }, body: '{}' }),
      );
      if (i % 19 === 18) clock.advance(60_000); // stay under the failed-auth budget
    }
    expect(await h.store.deliveries.list(h.principal.team_uid, webhook.uid, { limit: 500 })).toHaveLength(60);
    clock.advance(8 * 24 * 60 * 60 * 1000);
    // Traffic no longer sweeps: requests answer without touching the log's old entries.
    await h.handler(new Request(`${ORIGIN}/webhooks/w/unknown`, { method: 'POST', body: '{}' }));
    expect(await h.store.deliveries.list(h.principal.team_uid, webhook.uid, { limit: 500 })).toHaveLength(60);
    // The maintenance run (a worker's timer, or a host's own) does.
    await h.handler.app.maintenance.runDue();
    expect(await h.store.deliveries.list(h.principal.team_uid, webhook.uid, { limit: 500 })).toHaveLength(50);
  });
});
