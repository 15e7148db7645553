import { createHmac } from 'node:crypto';
import { createMemoryStore } from '@agentrun/store-memory';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../src/logging/logger.js';
import { manualClock, setup, T0 } from './helpers.js';

// Logging through the host's logger (docs/operations.md, "Logging"): a line per request with its
// identifiers, the unexpected errors with their request id, and never a secret, token, signature
// or body.

const KEY = Buffer.alloc(32, 7).toString('base64');

interface Line {
  level: 'error' | 'warn' | 'info' | 'debug';
  fields: Record<string, unknown>;
  message: string;
}

/** A pino-like logger that keeps every call. */
function capturingLogger(): Logger & { lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: Line['level']) => (fields: object, message: string) =>
    void lines.push({ level, fields: fields as Line['fields'], message });
  return { lines, error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

/** Everything a line could print: its fields as JSON, and an error's message and stack. */
const printed = (line: Line) =>
  `${line.message} ${JSON.stringify(line.fields, (_k, v: unknown) => (v instanceof Error ? `${v.message} ${v.stack}` : v))}`;

const sign = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('logging through the host logger', () => {
  it('logs every ingress outcome and control-plane change with its identifiers, and no secret, token, signature or body', async () => {
    const logger = capturingLogger();
    const h = await setup({
      secretKey: KEY,
      logger,
      onError: undefined,
      clock: manualClock(T0, 1),
      ingressLimits: { deliveriesPerWindow: 4, authFailuresPerWindow: 2, maxBodyBytes: 2048 },
    });
    // Every secret value the exercise uses; each must be absent from every line.
    const secrets: string[] = [h.key];
    const ok = async (res: Response) => {
      expect(res.status < 300, `${res.status} ${await res.clone().text()}`).toBe(true);
      return res;
    };

    // Control plane: a factory, a team secret, webhooks of every mode, rotation, toggles, automations, a test filter, definitions.
    const factory = ((await h.json<{ uid: string }>('POST', '/factories', { body: { name: 'Logs' } })).body as { uid: string }).uid;
    const teamSecret = 'team-secret-value-5f1c2b';
    secrets.push(teamSecret);
    await ok(await h.call('PUT', '/team/secrets/deploy_key', { body: { value: teamSecret } }));
    const webhooks = `/factories/${factory}/webhooks`;
    const made = async (body: Record<string, unknown>) => {
      const res = await h.json<{ webhook: { uid: string }; ingress_url: string; secret?: string }>('POST', webhooks, { body });
      expect(res.status).toBe(201);
      if (res.body.secret) secrets.push(res.body.secret);
      return res.body;
    };
    const token = await made({ name: 'token', auth_mode: 'token' });
    const urlToken = await made({ name: 'url', auth_mode: 'url_token' });
    const providerSecret = 'gh-provider-secret-9a8b7c';
    secrets.push(providerSecret);
    const signed = await made({ name: 'gh', auth_mode: 'signature', signature_scheme: 'github', provider_secret: providerSecret });
    const urlTokenValue = new URL(urlToken.ingress_url).pathname.split('/').pop() as string;
    secrets.push(urlTokenValue);
    const rotated = await h.json<{ secret: string }>('POST', `${webhooks}/${token.webhook.uid}/rotate-secret`);
    expect(rotated.status).toBe(200);
    secrets.push(rotated.body.secret);
    const newProviderSecret = 'gh-provider-secret-rotated-1d2e3f';
    secrets.push(newProviderSecret);
    await ok(await h.call('PUT', `${webhooks}/${signed.webhook.uid}/provider-secret`, { body: { secret: newProviderSecret } }));
    const prompt = 'PROMPT-TEXT-never-logged-77aa';
    secrets.push(prompt);
    const automation = await h.json<{ id: string }>('POST', `/factories/${factory}/automations`, {
      body: {
        name: 'Triage',
        prompt,
        triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [token.webhook.uid] } }],
      },
    });
    expect(automation.status).toBe(201);
    await ok(await h.call('PATCH', `/factories/${factory}/automations/${automation.body.id}`, { body: { enabled: true } }));
    const filterPayload = '{"filter-payload":"FILTER-BODY-66ee"}';
    secrets.push('FILTER-BODY-66ee');
    await ok(
      await h.call('POST', `/factories/${factory}/automations/${automation.body.id}/test-filter`, {
        body: { webhook_uid: token.webhook.uid, payload: JSON.parse(filterPayload) },
      }),
    );
    const other = await made({ name: 'toggled', auth_mode: 'token' });
    await ok(await h.call('PATCH', `${webhooks}/${other.webhook.uid}`, { body: { enabled: false } }));
    await ok(await h.call('DELETE', `${webhooks}/${other.webhook.uid}`));

    // Ingress: every outcome.
    const deliver = (path: string, body: string, headers: Record<string, string> = {}) =>
      h.handler(new Request(`http://agentrun.test${path}`, { method: 'POST', headers, body }));
    const tokenPath = new URL(token.ingress_url).pathname;
    const bodyOf = (n: number) => {
      const marker = `PAYLOAD-BODY-${n}-c0ffee`;
      secrets.push(marker);
      return JSON.stringify({ marker });
    };
    const auth = { authorization: `Bearer ${rotated.body.secret}` };
    const accepted = await deliver(tokenPath, bodyOf(1), auth);
    expect(accepted.status).toBe(202);
    const { delivery_id } = (await accepted.json()) as { delivery_id: string };
    expect((await deliver(tokenPath, bodyOf(1), auth)).status).toBe(202); // the same body again: a duplicate
    const wrongToken = 'wrong-token-value-0badc0de';
    secrets.push(wrongToken);
    expect((await deliver(tokenPath, bodyOf(2), { authorization: `Bearer ${wrongToken}` })).status).toBe(401);
    expect((await deliver(tokenPath, 'NOT-JSON-BODY-{{', auth)).status).toBe(400);
    secrets.push('NOT-JSON-BODY');
    expect((await deliver(tokenPath, JSON.stringify({ big: 'B'.repeat(4096), m: 'LARGE-BODY-4e4e' }), auth)).status).toBe(413);
    secrets.push('LARGE-BODY-4e4e');
    expect((await deliver(new URL(urlToken.ingress_url).pathname, bodyOf(3))).status).toBe(202);
    expect((await deliver(`/webhooks/w/${urlToken.webhook.uid}/not-the-token-1234`, bodyOf(4))).status).toBe(401);
    secrets.push('not-the-token-1234');
    const signedPath = new URL(signed.ingress_url).pathname;
    const signedBody = bodyOf(5);
    const goodSignature = sign(newProviderSecret, signedBody);
    const badSignature = sign('not-the-provider-secret', signedBody);
    secrets.push(goodSignature.slice(7), badSignature.slice(7));
    expect((await deliver(signedPath, signedBody, { 'x-hub-signature-256': goodSignature, 'x-github-delivery': 'gh-1' })).status).toBe(202);
    expect((await deliver(signedPath, signedBody, { 'x-hub-signature-256': badSignature })).status).toBe(401);
    expect((await deliver('/webhooks/w/wh_nosuchwebhook', bodyOf(6))).status).toBe(404);
    // The failed-auth budget (2 a window) is spent on the token webhook: 429 without a read.
    expect((await deliver(tokenPath, bodyOf(7), { authorization: `Bearer ${wrongToken}` })).status).toBe(401);
    expect((await deliver(tokenPath, bodyOf(8), { authorization: `Bearer ${wrongToken}` })).status).toBe(429);
    // The delivery rate (4 a window) on the url-token webhook.
    for (let i = 0; i < 4; i++) await deliver(new URL(urlToken.ingress_url).pathname, bodyOf(10 + i));

    // Runs: the API's own, a follow-up, a cancel.
    const runPrompt = 'RUN-PROMPT-never-logged-31337';
    secrets.push(runPrompt);
    const run = await h.json<{ run_id: string }>('POST', '/agent/run', { body: { prompt: runPrompt } });
    expect(run.status).toBe(200);
    await h.call('POST', `/agent/runs/${run.body.run_id}/followups`, { body: { message: 'FOLLOWUP-TEXT-2f2f' } });
    secrets.push('FOLLOWUP-TEXT-2f2f');
    await h.call('POST', `/agent/runs/${run.body.run_id}/cancel`);
    await h.call('GET', '/agent/runs', { key: 'ar_not-a-real-key-abcdef' });
    secrets.push('ar_not-a-real-key-abcdef');

    const lines = logger.lines;
    const requests = lines.filter((l) => l.message === 'request');
    const outcomes = new Set(requests.map((l) => l.fields.outcome).filter(Boolean));
    expect([...outcomes].sort()).toEqual(
      ['accepted', 'duplicate', 'no_such_webhook', 'rate_limited', 'rejected_auth', 'rejected_invalid', 'rejected_too_large'].sort(),
    );
    // Identifiers: every line a request id; ingress lines the webhook; an accepted one its delivery; run routes the run.
    for (const l of requests) expect(l.fields.request_id).toEqual(expect.any(String));
    expect(requests.find((l) => l.fields.delivery_id === delivery_id)).toMatchObject({
      fields: { webhook_uid: token.webhook.uid, outcome: 'accepted', status: 202, operation: 'deliverWebhook' },
    });
    expect(requests.some((l) => l.fields.run_id === run.body.run_id && l.fields.operation === 'cancelRun')).toBe(true);
    // And no secret anywhere.
    expect(secrets.length).toBeGreaterThan(20);
    const leaks = lines.flatMap((l) => secrets.filter((s) => printed(l).includes(s)).map((s) => `${s} in ${printed(l)}`));
    expect(leaks).toEqual([]);
  });

  it('hands an unexpected store failure to the host logger with its request id', async () => {
    const logger = capturingLogger();
    const store = createMemoryStore();
    const failing = { ...store, runs: { ...store.runs, list: async () => Promise.reject(new Error('store exploded')) } };
    const h = await setup({ store: failing, logger, onError: undefined });
    const res = await h.call('GET', '/agent/runs');
    expect(res.status).toBe(500);
    const requestId = res.headers.get('x-request-id');
    const errors = logger.lines.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ message: 'unexpected error', fields: { request_id: requestId } });
    expect(((errors[0] as Line).fields.err as Error).message).toBe('store exploded');
    // Its request line carries the same id.
    expect(logger.lines.find((l) => l.message === 'request')?.fields).toMatchObject({ request_id: requestId, status: 500 });
  });

  it('gives unexpected errors to onError instead of the logger when the host passes one', async () => {
    const logger = capturingLogger();
    const store = createMemoryStore();
    const failing = { ...store, runs: { ...store.runs, list: async () => Promise.reject(new Error('store exploded')) } };
    const seen: unknown[] = [];
    const h = await setup({ store: failing, logger, onError: (error) => seen.push(error) });
    expect((await h.call('GET', '/agent/runs')).status).toBe(500);
    expect(seen).toHaveLength(1);
    expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('logs the line of a request that cannot take a property (frozen)', async () => {
    const logger = capturingLogger();
    const h = await setup({ logger });
    const res = await h.handler(Object.freeze(new Request('http://agentrun.test/readyz')));
    expect(res.status).toBe(200);
    expect(logger.lines.find((l) => l.message === 'request')?.fields).toMatchObject({
      request_id: res.headers.get('x-request-id'),
      operation: 'getReadiness',
      status: 200,
    });
  });
});
