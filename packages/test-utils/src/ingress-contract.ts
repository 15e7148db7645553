import { createHmac, randomBytes } from 'node:crypto';
import { type AgentRunHandler, createAgentRunHandler, createApiKey, type Mountable } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { StartedServer } from './bridge-contract.js';

/** Where every server of the contract mounts agentrun. */
export const MOUNT = '/agents';
/**
 * Host routes every server must have, parsing JSON with the framework's own parser and answering
 * `{ got: <parsed body> }`: one outside the mount point and one inside it.
 */
export const HOST_JSON_ROUTES = ['/json', `${MOUNT}/json`] as const;

const MAX_BODY = 262_144;

interface Created {
  webhook: { uid: string; auth_mode: string };
  ingress_url: string;
  secret?: string;
}
interface LogEntry {
  delivery_id: string;
  identity: string | null;
  size: number;
  received_at: string;
  status: string;
}
interface RunView {
  run_id: string;
  source: string;
  prompt: string;
  trigger?: { factory_uid: string; automation_id: string; webhook_uid: string; delivery_id: string };
}

const utf8 = (text: string) => new TextEncoder().encode(text);
const githubSignature = (secret: string, bytes: Uint8Array) => `sha256=${createHmac('sha256', secret).update(bytes).digest('hex')}`;

/**
 * A handler to mount before the real one exists: the real one needs the server's port for its
 * ingress URLs (`webhookBaseUrl` = origin + MOUNT), which is known only once the server listens.
 */
function lateHandler(): { handler: Mountable; set(core: AgentRunHandler): void; core(): AgentRunHandler } {
  let core: AgentRunHandler | undefined;
  const current = () => {
    if (!core) throw new Error('the core handler is not ready yet');
    return core;
  };
  return {
    // Adapters use only fetch and owns.
    handler: { fetch: (request) => current().fetch(request), owns: (pathname) => current().owns(pathname) },
    set: (c) => {
      core = c;
    },
    core: current,
  };
}

/**
 * The webhook ingress's answers and log labels (docs/webhooks.md,
 * "Answers, log labels and limits"), through a real framework server on 127.0.0.1 with the real
 * core handler on a memory store. `start` mounts `handler` at MOUNT (the host's body parsers
 * elsewhere, per HOST_JSON_ROUTES) and listens. Call it inside a `describe`.
 */
export function ingressContract(start: (handler: Mountable) => Promise<StartedServer>): void {
  const late = lateHandler();
  const errors: unknown[] = [];
  let server: StartedServer;
  let base = '';
  let apiKey = '';
  let factory = '';

  const api = async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T; res: Response }> => {
    const res = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: (text === '' ? undefined : JSON.parse(text)) as T, res };
  };
  const createWebhook = async (body: Record<string, unknown>): Promise<Created> => {
    const created = await api<Created>('POST', `/factories/${factory}/webhooks`, body);
    expect(created.status).toBe(201);
    return created.body;
  };
  const addAutomation = async (webhookUid: string) => {
    const created = await api<{ id: string }>('POST', `/factories/${factory}/automations`, {
      name: 'Triage',
      prompt: 'Triage the event.',
      enabled: true,
      triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [webhookUid] } }],
    });
    expect(created.status).toBe(201);
    return created.body.id;
  };
  const deliver = (url: string, body: string | Uint8Array, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers, body: body as BodyInit });
  /** 202 `{ delivery_id }`, returned. */
  const accepted = async (res: Response) => {
    expect(res.status).toBe(202);
    const body = (await res.json()) as { delivery_id: string };
    expect(body).toEqual({ delivery_id: expect.any(String) });
    return body.delivery_id;
  };
  const expectProblem = async (res: Response, status: number, error: string) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toMatchObject({ status, error });
  };
  /** The delivery log through the management API, newest first. */
  const log = async (uid: string) => {
    const res = await api<{ deliveries: LogEntry[] }>('GET', `/factories/${factory}/webhooks/${uid}/deliveries?limit=200`);
    expect(res.status).toBe(200);
    return res.body.deliveries;
  };
  const statusById = async (uid: string) => new Map((await log(uid)).map((d) => [d.delivery_id, d.status]));
  /** Labels, sorted: entries of one millisecond have no defined order. */
  const labels = async (uid: string) => (await log(uid)).map((d) => d.status).sort();
  const runsOf = async (uid: string) => {
    // The runs of accepted deliveries are made after the 202 (docs/webhooks.md, "When runs start").
    await late.core().app.evaluator.drain();
    const res = await api<{ runs: RunView[] }>('GET', '/agent/runs?source=WEBHOOK&limit=500');
    expect(res.status).toBe(200);
    return res.body.runs.filter((r) => r.trigger?.webhook_uid === uid);
  };
  const payloadOf = async (runId: string) => {
    const res = await fetch(`${base}/api/v1/agent/runs/${runId}/attachments/event-payload.json`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(res.status).toBe(200);
    return new Uint8Array(await res.arrayBuffer());
  };
  const tokenWebhook = async () => {
    const created = await createWebhook({ name: 'CI', auth_mode: 'token' });
    return { ...created, auth: { authorization: `Bearer ${created.secret}` } };
  };

  beforeAll(async () => {
    server = await start(late.handler);
    base = server.origin + MOUNT;
    const store = createMemoryStore();
    late.set(
      createAgentRunHandler({
        store,
        secretKey: randomBytes(32).toString('base64'),
        // No webhookBaseUrl: the printed ingress_url must carry the mount prefix the adapter knows.
        onError: (error) => errors.push(error),
      }),
    );
    apiKey = await createApiKey(store.apiKeys, testPrincipal());
    const created = await api<{ uid: string }>('POST', '/factories', { name: 'Acme' });
    expect(created.status).toBe(201);
    factory = created.body.uid;
  });
  afterAll(() => server?.close());

  it('Accepted: 202 at the ingress URL the service shows; a run starts with the raw body attached byte-exact', async () => {
    const { webhook, ingress_url, auth } = await tokenWebhook();
    expect(ingress_url).toBe(`${base}/webhooks/w/${webhook.uid}`);
    const automationId = await addAutomation(webhook.uid);
    // Raw (unescaped) UTF-8 of 2, 3 and 4 bytes, keys in no sorted order (one that JSON.parse
    // reorders), number spellings a re-serialiser would change, odd whitespace.
    const bytes = utf8('{ "zeta":"h\u00e9llo \u2014 \u2603 \ud83c\udf89", "Alpha":[3,1,2],"10":1.50,"_":{"\u00e9":-0,"a":1e2} }\r\n');
    expect(bytes.filter((byte) => byte >= 0x80).length).toBe(2 + 3 + 3 + 4 + 2);
    // A Uint8Array body: fetch sends no Content-Type, and the ingress does not need one.
    const deliveryId = await accepted(await deliver(ingress_url, bytes, auth));

    const runs = await runsOf(webhook.uid);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      source: 'WEBHOOK',
      trigger: { factory_uid: factory, automation_id: automationId, webhook_uid: webhook.uid, delivery_id: deliveryId },
    });
    expect(runs[0]?.prompt).toContain(`delivery ID ${deliveryId}`);
    expect(Buffer.from(await payloadOf(runs[0]?.run_id as string)).equals(bytes)).toBe(true);

    const entries = await log(webhook.uid);
    expect(entries).toEqual([expect.objectContaining({ delivery_id: deliveryId, status: 'Accepted', size: bytes.byteLength })]);
    const one = await api<{ payload: unknown }>('GET', `/factories/${factory}/webhooks/${webhook.uid}/deliveries/${deliveryId}`);
    // The log shows the payload as JSON (where -0 is 0); the run's attachment above is the exact bytes.
    expect(one.body.payload).toEqual(JSON.parse(JSON.stringify(JSON.parse(new TextDecoder().decode(bytes)))));

    // A JSON Content-Type changes nothing either: no host body parser reaches the ingress.
    const typed = utf8('[ "\u00fcber" ,\t2 ]');
    await accepted(await deliver(ingress_url, typed, { ...auth, 'content-type': 'application/json' }));
    const runs2 = await runsOf(webhook.uid);
    expect(runs2).toHaveLength(2);
    const typedRun = runs2.find((r) => r.trigger?.delivery_id !== deliveryId);
    expect(Buffer.from(await payloadOf(typedRun?.run_id as string)).equals(typed)).toBe(true);
  });

  it('answers HEAD like GET without a body, and echoes x-request-id (also in problem bodies)', async () => {
    const url = `${base}/api/v1/agent/runs?limit=3`;
    const headers = { authorization: `Bearer ${apiKey}`, 'x-request-id': 'trace-42' };
    const get = await fetch(url, { headers });
    const text = await get.text();
    const head = await fetch(url, { method: 'HEAD', headers });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(await head.text()).toBe('');
    expect([get.headers.get('x-request-id'), head.headers.get('x-request-id')]).toEqual(['trace-42', 'trace-42']);
    const missing = await fetch(`${base}/api/v1/agent/runs/nope`, { headers });
    expect(missing.headers.get('x-request-id')).toBe('trace-42');
    expect(await missing.json()).toMatchObject({ status: 404, request_id: 'trace-42' });
    const ingress = await fetch(`${base}/webhooks/w/nope`, { method: 'POST', body: '{}' });
    expect(ingress.headers.get('x-request-id')).toEqual(expect.any(String));
  });

  it('answers HEAD on a streamed attachment and on errors without a body, and puts x-request-id on every answer', async () => {
    const headers = { authorization: `Bearer ${apiKey}`, 'x-request-id': 'trace-43' };
    const data = new Uint8Array(70_000).map((_, i) => i);
    const created = await api<{ run_id: string }>('POST', '/agent/run', {
      prompt: 'p',
      attachments: [{ file_name: 'blob.bin', mime_type: 'application/octet-stream', data: Buffer.from(data).toString('base64') }],
    });
    const file = `${base}/api/v1/agent/runs/${created.body.run_id}/attachments/blob.bin`;
    const head = await fetch(file, { method: 'HEAD', headers });
    expect([head.status, head.headers.get('content-length'), head.headers.get('x-request-id')]).toEqual([200, '70000', 'trace-43']);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    expect(Buffer.from(await (await fetch(file, { headers })).arrayBuffer()).equals(Buffer.from(data))).toBe(true);

    const missing = await fetch(`${base}/api/v1/agent/runs/nope`, { method: 'HEAD', headers });
    expect([missing.status, missing.headers.get('x-request-id'), await missing.text()]).toEqual([404, 'trace-43', '']);
    // 405 (run API and ingress) and 401: the header, and the id in the problem body.
    for (const res of [
      await fetch(`${base}/api/v1/agent/runs`, { method: 'DELETE', headers }),
      await fetch(`${base}/webhooks/w/nope`, { method: 'GET', headers: { 'x-request-id': 'trace-43' } }),
      await fetch(`${base}/api/v1/agent/runs`, { headers: { 'x-request-id': 'trace-43' } }),
    ]) {
      expect(res.headers.get('x-request-id')).toBe('trace-43');
      expect(await res.json()).toMatchObject({ request_id: 'trace-43' });
    }
    // A header that is not a usable id is replaced, never refused.
    const replaced = await fetch(`${base}/api/v1/agent/runs`, { headers: { ...headers, 'x-request-id': 'x'.repeat(201) } });
    expect(replaced.status).toBe(200);
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);

    const cancel = await fetch(`${base}/api/v1/agent/runs/${created.body.run_id}/cancel`, { method: 'POST', headers });
    expect([cancel.status, cancel.headers.get('content-type'), await cancel.text()]).toEqual([
      200,
      'text/plain; charset=utf-8',
      created.body.run_id,
    ]);
  });

  it("leaves the host's JSON routes (and their body parser) working, inside and outside the mount point", async () => {
    for (const route of HOST_JSON_ROUTES) {
      const res = await fetch(server.origin + route, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"b":[1,2],"a":"\u00e9"}',
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ got: { b: [1, 2], a: '\u00e9' } });
    }
  });

  it('Duplicate: the same identity again is 202 { delivery_id }, logged Duplicate, and starts no run', async () => {
    const { webhook, ingress_url, auth } = await tokenWebhook();
    await addAutomation(webhook.uid);
    const first = await accepted(await deliver(ingress_url, '{"a":1,"b":[true,null]}', auth));
    const same = await accepted(await deliver(ingress_url, '{"a":1,"b":[true,null]}', auth));
    // No delivery ID header: the identity is the hash of the canonical JSON, so key order and spacing do not matter.
    const reordered = await accepted(await deliver(ingress_url, utf8('{ "b": [true, null], "a": 1 }'), auth));
    // The sender's own delivery ID wins over the body.
    const own = await accepted(await deliver(ingress_url, '{"a":1,"b":[true,null]}', { ...auth, 'x-acme-delivery-id': 'evt-1' }));
    const ownAgain = await accepted(await deliver(ingress_url, '{"other":"body"}', { ...auth, 'x-acme-delivery-id': 'evt-1' }));
    expect(new Set([first, same, reordered, own, ownAgain]).size).toBe(5);

    const status = await statusById(webhook.uid);
    expect(Object.fromEntries([first, same, reordered, own, ownAgain].map((id) => [id, status.get(id)]))).toEqual({
      [first]: 'Accepted',
      [same]: 'Duplicate',
      [reordered]: 'Duplicate',
      [own]: 'Accepted',
      [ownAgain]: 'Duplicate',
    });
    expect(status.size).toBe(5);
    expect((await runsOf(webhook.uid)).map((r) => r.trigger?.delivery_id).sort()).toEqual([first, own].sort());
  });

  it('Rejected (auth): 401 for a wrong, missing or rotated bearer token and a wrong URL token, logged', async () => {
    const { webhook, ingress_url, auth } = await tokenWebhook();
    await expectProblem(await deliver(ingress_url, '{}', { authorization: 'Bearer wrong' }), 401, 'unauthorized');
    await expectProblem(await deliver(ingress_url, '{}', { authorization: `Bearer ${auth.authorization.slice(7)}x` }), 401, 'unauthorized');
    await expectProblem(await deliver(ingress_url, '{}'), 401, 'unauthorized');
    expect((await api('POST', `/factories/${factory}/webhooks/${webhook.uid}/rotate-secret`)).status).toBe(200);
    await expectProblem(await deliver(ingress_url, '{}', auth), 401, 'unauthorized');
    expect(await labels(webhook.uid)).toEqual(Array(4).fill('Rejected (auth)'));
    expect(await runsOf(webhook.uid)).toHaveLength(0);

    const url = await createWebhook({ name: 'Cron', auth_mode: 'url_token' });
    expect(url.ingress_url).toBe(`${base}/webhooks/w/${url.webhook.uid}/${url.secret}`);
    await accepted(await deliver(url.ingress_url, '{}'));
    await expectProblem(await deliver(`${base}/webhooks/w/${url.webhook.uid}/wrong`, '{}'), 401, 'unauthorized');
    await expectProblem(await deliver(`${base}/webhooks/w/${url.webhook.uid}`, '{}'), 401, 'unauthorized');
    expect(await labels(url.webhook.uid)).toEqual(['Accepted', 'Rejected (auth)', 'Rejected (auth)']);
  });

  it('GitHub signature: the exact bytes pass through (202), tampered bytes are 401, the same X-GitHub-Delivery is a Duplicate', async () => {
    const { webhook, ingress_url } = await createWebhook({
      name: 'GitHub',
      auth_mode: 'signature',
      signature_scheme: 'github',
      provider_secret: 'gh-secret',
    });
    await addAutomation(webhook.uid);
    const bytes = utf8('{"zen":"Keep it logically awesome \u2014 \u00e9\u00e8 \ud83d\ude80","hook_id":7,"action":"opened" ,"a":{}}\n');
    const signed = { 'x-hub-signature-256': githubSignature('gh-secret', bytes), 'x-github-delivery': 'gh-1' };
    const deliveryId = await accepted(await deliver(ingress_url, bytes, { ...signed, 'content-type': 'application/json' }));
    const runs = await runsOf(webhook.uid);
    expect(runs.map((r) => r.trigger?.delivery_id)).toEqual([deliveryId]);
    expect(Buffer.from(await payloadOf(runs[0]?.run_id as string)).equals(bytes)).toBe(true);

    // One byte changed (still valid JSON, still valid UTF-8), the signature of the original.
    const tampered = bytes.slice();
    tampered[tampered.indexOf(0x37)] = 0x38; // hook_id 7 → 8
    await expectProblem(await deliver(ingress_url, tampered, signed), 401, 'unauthorized');
    // The bytes re-serialised (as a body parser would) fail too.
    const reserialised = utf8(JSON.stringify(JSON.parse(new TextDecoder().decode(bytes))));
    await expectProblem(await deliver(ingress_url, reserialised, signed), 401, 'unauthorized');
    await expectProblem(await deliver(ingress_url, bytes, { 'x-github-delivery': 'gh-2' }), 401, 'unauthorized');

    const again = await accepted(await deliver(ingress_url, bytes, signed));
    const status = await statusById(webhook.uid);
    expect([status.get(deliveryId), status.get(again)]).toEqual(['Accepted', 'Duplicate']);
    expect(await labels(webhook.uid)).toEqual(['Accepted', 'Duplicate', 'Rejected (auth)', 'Rejected (auth)', 'Rejected (auth)']);
    expect(await runsOf(webhook.uid)).toHaveLength(1);
  });

  it('Rejected (invalid JSON): 400 for bad JSON, invalid UTF-8 and an empty body, logged', async () => {
    const { webhook, ingress_url, auth } = await tokenWebhook();
    await addAutomation(webhook.uid);
    const bodies: (string | Uint8Array)[] = [
      '{"a":',
      "{'a':1}",
      new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), // {"a":"\xff"}
      new Uint8Array([0x22, 0xc0, 0xaf, 0x22]), // an overlong encoding of "/"
      new Uint8Array([0x22, 0xed, 0xa0, 0x80, 0x22]), // a UTF-16 surrogate encoded as UTF-8
      new Uint8Array([0x22, 0xe2, 0x82, 0x22]), // a truncated sequence
      '',
    ];
    for (const body of bodies) await expectProblem(await deliver(ingress_url, body, auth), 400, 'invalid_request');
    expect(await labels(webhook.uid)).toEqual(Array(bodies.length).fill('Rejected (invalid JSON)'));
    expect(await runsOf(webhook.uid)).toHaveLength(0);
  });

  it('Rejected (too large): 413 for 262,145 bytes, logged; exactly 262,144 bytes is accepted whole', async () => {
    const { webhook, ingress_url, auth } = await tokenWebhook();
    await addAutomation(webhook.uid);
    const json = (size: number) => utf8(`"${'x'.repeat(size - 2)}"`);
    const deliveryId = await accepted(await deliver(ingress_url, json(MAX_BODY), auth));
    const res = await deliver(ingress_url, json(MAX_BODY + 1), auth);
    await expectProblem(res, 413, 'payload_too_large');

    const entries = await log(webhook.uid);
    expect(entries.map((d) => [d.status, d.size]).sort()).toEqual([
      ['Accepted', MAX_BODY],
      ['Rejected (too large)', MAX_BODY + 1],
    ]);
    const runs = await runsOf(webhook.uid);
    expect(runs.map((r) => r.trigger?.delivery_id)).toEqual([deliveryId]);
    expect((await payloadOf(runs[0]?.run_id as string)).byteLength).toBe(MAX_BODY);
  });

  it('404 for an unknown, disabled or deleted webhook and a wrong UID or path, not logged', async () => {
    const { webhook, ingress_url, auth } = await tokenWebhook();
    const notFound = async (url: string) => expectProblem(await deliver(url, '{}', auth), 404, 'not_found');
    await notFound(`${base}/webhooks/w/no-such-webhook`);
    await notFound(`${base}/webhooks/w/${webhook.uid.slice(0, -1)}`);
    await notFound(`${ingress_url}/extra`);
    const patch = async (enabled: boolean) =>
      expect((await api('PATCH', `/factories/${factory}/webhooks/${webhook.uid}`, { enabled })).status).toBe(200);
    await patch(false);
    await notFound(ingress_url);
    await patch(true);
    await accepted(await deliver(ingress_url, '{}', auth));
    expect((await api('DELETE', `/factories/${factory}/webhooks/${webhook.uid}`)).status).toBe(204);
    await notFound(ingress_url);
    // The deleted webhook's history stays readable, and none of the 404s is in it.
    expect(await labels(webhook.uid)).toEqual(['Accepted']);
  });

  it('405 with Allow: POST for other methods', async () => {
    const { ingress_url, auth } = await tokenWebhook();
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const res = await fetch(ingress_url, { method, headers: auth });
      expect(res.headers.get('allow')).toBe('POST');
      await expectProblem(res, 405, 'method_not_allowed');
    }
  });

  it('429 with Retry-After for the 61st delivery in a minute, not logged', async () => {
    const { webhook, ingress_url, auth } = await tokenWebhook();
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => deliver(ingress_url, `{"i":${i}}`, auth)));
    for (const res of answers) await accepted(res);
    const limited = await deliver(ingress_url, '{"i":60}', auth);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    await expectProblem(limited, 429, 'rate_limited');
    expect(await labels(webhook.uid)).toEqual(Array(60).fill('Accepted'));
  });

  it('429 with Retry-After once the failed-authentication budget (20 a minute) is spent, even for the right token', async () => {
    const { webhook, ingress_url, auth } = await tokenWebhook();
    for (let i = 0; i < 20; i++)
      await expectProblem(await deliver(ingress_url, '{}', { authorization: 'Bearer wrong' }), 401, 'unauthorized');
    for (const headers of [{ authorization: 'Bearer wrong' }, auth]) {
      const limited = await deliver(ingress_url, '{}', headers);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      await expectProblem(limited, 429, 'rate_limited');
    }
    expect(await labels(webhook.uid)).toEqual(Array(20).fill('Rejected (auth)'));
  });

  it('reported no unexpected errors', () => {
    expect(errors).toEqual([]);
  });
}
