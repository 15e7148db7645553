import { seedEnvironments } from '@agentrun/core/testing';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { codePointLength } from '../src/models/char-limit.js';
import { CONFIG_LIMITS } from '../src/models/config.js';
import { REQUEST_LIMITS } from '../src/models/requests.js';
import { b64, expectProblem, type Harness, setup } from './helpers.js';

// What the published clients send, HEAD, request ids and base64 attachments (docs/run-api.md,
// "Endpoints" and "Start a run").

let h: Harness;
beforeEach(async () => {
  h = await setup({
    secretKey: 'a'.repeat(64),
    skills: ['acme/tools:.claude/skills/deploy/SKILL.md', 'acme/tools:deploy', 'acme/tools:lint'],
  });
  // Runs below name environment `env`: an unknown environment_id is a 400.
  await seedEnvironments(h.store, h.principal.team_uid, 'env');
  // …and the team secrets they name for a harness's key: an unknown one is a 400 too.
  for (const name of ['CLAUDE', 'CODEX', 'S']) {
    const put = await h.json('PUT', `/team/secrets/${name}`, { body: { value: `key-of-${name}` } });
    expect(put.status, JSON.stringify(put.body)).toBeLessThan(300);
  }
});

const createRun = async (body: unknown) => {
  const res = await h.json<{ run_id: string }>('POST', '/agent/run', { body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.run_id;
};

describe('base64 attachments', () => {
  const MiB = 1024 * 1024;
  const attach = (bytes: number) => ({
    prompt: 'p',
    attachments: [{ file_name: 'big.bin', mime_type: 'application/octet-stream', data: b64(new Uint8Array(bytes)) }],
  });

  it.each([3 * MiB, 4 * MiB, REQUEST_LIMITS.attachmentBytes])('accepts %i decoded bytes (no stack overflow)', async (bytes) => {
    await createRun(attach(bytes));
    expect(h.errors).toEqual([]);
  });

  it.each([REQUEST_LIMITS.attachmentBytes + 1, REQUEST_LIMITS.attachmentBytes + 2, 8 * MiB])(
    'refuses %i decoded bytes with a 400',
    async (bytes) => {
      const p = await expectProblem(await h.call('POST', '/agent/run', { body: attach(bytes) }), 400, 'invalid_request');
      expect(p.detail).toMatch(/bytes decoded/);
      expect(h.errors).toEqual([]);
    },
  );

  it('a 5 MiB image is accepted too, and 5 MiB + 1 refused', async () => {
    const image = (bytes: number) => ({ prompt: 'p', images: [{ mime_type: 'image/png', data: b64(new Uint8Array(bytes)) }] });
    await createRun(image(REQUEST_LIMITS.attachmentBytes));
    await expectProblem(await h.call('POST', '/agent/run', { body: image(REQUEST_LIMITS.attachmentBytes + 1) }), 400);
  });
  // The validator itself is checked against Node's Buffer in base64.test.ts.
});

describe('prompt limits count characters', () => {
  it('counts code points as the spread operator does, unpaired surrogates included', () => {
    const unit = fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.constantFrom('\ud800', '\udc00', 'a', '😀'));
    fc.assert(
      fc.property(
        fc.array(unit, { maxLength: 8 }).map((parts) => parts.join('')),
        (text) => {
          expect(codePointLength(text)).toBe([...text].length);
        },
      ),
    );
  });

  it('counts the title, base_prompt and a follow-up the same way', async () => {
    const emoji = '\u{1F600}';
    await createRun({ prompt: 'p', title: emoji.repeat(REQUEST_LIMITS.title) });
    await expectProblem(await h.call('POST', '/agent/run', { body: { prompt: 'p', title: emoji.repeat(REQUEST_LIMITS.title + 1) } }), 400);
    await createRun({ prompt: 'p', config: { base_prompt: emoji.repeat(CONFIG_LIMITS.basePrompt) } });
    await expectProblem(
      await h.call('POST', '/agent/run', { body: { prompt: 'p', config: { base_prompt: emoji.repeat(CONFIG_LIMITS.basePrompt + 1) } } }),
      400,
    );
    const id = await createRun({ prompt: 'p' });
    await h.handler.service.applyEvent(id, { type: 'claim' });
    await h.handler.service.applyEvent(id, { type: 'start' });
    expect((await h.call('POST', `/agent/runs/${id}/followups`, { body: { message: emoji.repeat(REQUEST_LIMITS.followup) } })).status).toBe(
      200,
    );
    await expectProblem(
      await h.call('POST', `/agent/runs/${id}/followups`, { body: { message: emoji.repeat(REQUEST_LIMITS.followup + 1) } }),
      400,
    );
  });

  it('accepts 100,000 astral characters (200,000 UTF-16 units) and refuses one more', async () => {
    const emoji = '\u{1F600}';
    await createRun({ prompt: emoji.repeat(REQUEST_LIMITS.prompt) });
    const p = await expectProblem(await h.call('POST', '/agent/run', { body: { prompt: emoji.repeat(REQUEST_LIMITS.prompt + 1) } }), 400);
    expect(p.detail).toMatch(/characters/);
  });
});

describe('fields the published clients send', () => {
  // Every field of the Python client's AgentRunParams and AmbientAgentConfigParam
  // (warpdotdev/oz-sdk-python, types/agent_run_params.py, types/ambient_agent_config_param.py).
  const everyField = {
    prompt: 'Fix the bug',
    title: 'A title',
    skill: 'acme/tools:deploy',
    team: true,
    interactive: false,
    mode: 'plan',
    metadata: { ticket_id: 'VIS-238', 'a.b-c_d': '' },
    on_behalf_of: 'someone@example.com',
    conversation_id: 'conv-1',
    parent_run_id: 'parent-1',
    agent_identity_uid: 'agent-1',
    attachments: [{ file_name: 'a.txt', mime_type: 'text/plain', data: b64('hello') }],
    config: {
      name: 'nightly',
      model_id: 'm',
      base_prompt: 'be brief',
      environment_id: 'env',
      computer_use_enabled: false,
      idle_timeout_minutes: 10,
      worker_host: 'warp',
      harness: { type: 'claude', model_id: 'claude-haiku-4-5', reasoning_level: 'high' },
      harness_auth_secrets: { claude_auth_secret_name: 'CLAUDE', codex_auth_secret_name: 'CODEX' },
      credential_strategy: 'CREATOR',
      inference_providers: { aws: { disabled: false, region: 'us-east-1', role_arn: 'arn:aws:iam::1:role/x' } },
      memory_stores: [{ access: 'read_only', instructions: 'use it', uid: 'mem-1' }],
      runner_id: 'runner-1',
      session_sharing: { public_access: 'VIEWER' },
      skills: ['acme/tools:deploy'],
      mcp_servers: { gh: { url: 'https://mcp.example.com/sse', headers: { 'x-k': 'v' } } },
    },
  };

  it('accepts a run with every field set, and stores the config it was given', async () => {
    const parent = await createRun({ prompt: 'parent' });
    const id = await createRun({ ...everyField, parent_run_id: parent });
    const { body } = await h.json<{ agent_config: Record<string, unknown> }>('GET', `/agent/runs/${id}`);
    expect(body.agent_config).toMatchObject({
      harness: { type: 'claude', model_id: 'claude-haiku-4-5' },
      worker_host: 'warp',
      credential_strategy: 'CREATOR',
      runner_id: 'runner-1',
      memory_stores: [{ access: 'read_only', instructions: 'use it', uid: 'mem-1' }],
    });
  });

  it('accepts the contract form of harness and a null credential_strategy', async () => {
    await createRun({ prompt: 'p', config: { harness: { type: 'oz', auth_secret_name: 'S' }, credential_strategy: null } });
  });

  it('takes the first of config.skills as the skill when neither skill nor config.skill_spec is given (no prompt needed)', async () => {
    const id = await createRun({ config: { skills: ['acme/tools:.claude/skills/deploy/SKILL.md', 'acme/tools:lint'] } });
    const { body } = await h.json<{ agent_config: Record<string, unknown>; title: string }>('GET', `/agent/runs/${id}`);
    expect(body.agent_config).toMatchObject({ skill_spec: 'acme/tools:.claude/skills/deploy/SKILL.md', name: 'deploy' });
    expect(body.title).toBe('deploy');
    const p = await expectProblem(await h.call('POST', '/agent/run', { body: { config: { skills: ['not a spec'] } } }), 400);
    expect(p.detail).toMatch(/config\.skills\[0\]/);
    await expectProblem(await h.call('POST', '/agent/run', { body: { config: { skills: [] } } }), 400);
  });

  it('accepts a harness without type (the Python Harness is total=False: the default harness)', async () => {
    const id = await createRun({ prompt: 'p', config: { harness: { model_id: 'claude-haiku-4-5' } } });
    const { body } = await h.json<{ agent_config: Record<string, unknown> }>('GET', `/agent/runs/${id}`);
    expect(body.agent_config.harness).toEqual({ model_id: 'claude-haiku-4-5' });
    await createRun({ prompt: 'p', config: { harness: {} } });
  });

  it.each([
    ['interactive', { interactive: 'yes' }],
    ['mode', { mode: 'fast' }],
    ['metadata key', { metadata: { 'bad key': 'v' } }],
    ['metadata size', { metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }],
    ['metadata NUL', { metadata: { k: 'a\u0000b' } }],
    ['harness type', { config: { harness: { type: 'Not A Name!' } } }],
    ['harness type as a number', { config: { harness: { type: 1 } } }],
    ['harness model_id', { config: { harness: { model_id: ['x'] } } }],
    ['memory store access', { config: { memory_stores: [{ access: 'all', instructions: 'x', uid: 'u' }] } }],
  ])('still checks the type of %s', async (_, extra) => {
    await expectProblem(await h.call('POST', '/agent/run', { body: { prompt: 'p', ...extra } }), 400, 'invalid_request');
  });

  it('accepts a follow-up with mode, as the Python client sends it', async () => {
    const id = await createRun({ prompt: 'p' });
    await h.handler.service.applyEvent(id, { type: 'claim' });
    await h.handler.service.applyEvent(id, { type: 'start' });
    const res = await h.call('POST', `/agent/runs/${id}/followups`, { body: { message: 'more', mode: 'normal' } });
    expect(res.status).toBe(200);
  });
});

describe('HEAD', () => {
  it.each(['/agent/runs', '/agent/runs?state=QUEUED', '/factories'])('answers HEAD %s as GET without a body', async (path) => {
    await createRun({ prompt: 'p' });
    const get = await h.call('GET', path);
    const head = await h.call('HEAD', path);
    expect(head.status).toBe(get.status);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('content-length')).toBe(String(new TextEncoder().encode(await get.text()).byteLength));
    expect(await head.text()).toBe('');
  });

  it('answers HEAD on a run, an attachment, and an unknown run (404, no body)', async () => {
    const id = await createRun({ prompt: 'p', attachments: [{ file_name: 'a.txt', mime_type: 'text/plain', data: b64('hello') }] });
    expect((await h.call('HEAD', `/agent/runs/${id}`)).status).toBe(200);
    const file = await h.call('HEAD', `/agent/runs/${id}/attachments/a.txt`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-length')).toBe('5');
    expect(await file.text()).toBe('');
    const missing = await h.call('HEAD', '/agent/runs/nope');
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe('');
  });

  it('is not allowed where GET is not', async () => {
    const res = await h.call('HEAD', '/agent/runs/x/cancel');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('x-request-id', () => {
  it('echoes a usable incoming id on success and in problem bodies', async () => {
    const ok = await h.call('GET', '/agent/runs', { headers: { 'x-request-id': 'req-123' } });
    expect(ok.headers.get('x-request-id')).toBe('req-123');
    const bad = await h.call('GET', '/agent/runs?limit=0', { headers: { 'x-request-id': 'req-456' } });
    expect(bad.headers.get('x-request-id')).toBe('req-456');
    expect((await expectProblem(bad, 400)) as unknown).toMatchObject({ request_id: 'req-456' });
  });

  it.each([
    ['none', undefined],
    ['an empty one', ''],
    ['one with spaces', 'a b'],
    ['an overlong one', 'x'.repeat(201)],
  ])('generates one when the caller sent %s', async (_, incoming) => {
    const headers: Record<string, string> = incoming === undefined ? {} : { 'x-request-id': incoming };
    const res = await h.call('GET', '/agent/runs/nope', { headers });
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await res.json()).toMatchObject({ request_id: id });
  });

  it('is on the management API and on an accepted delivery (202), echoed', async () => {
    const secretKey = Buffer.alloc(32, 7).toString('base64');
    const m = await setup({ secretKey });
    const headers = { 'x-request-id': 'mgmt-1' };
    const factory = await m.call('POST', '/factories', { body: { name: 'f' }, headers });
    expect([factory.status, factory.headers.get('x-request-id')]).toEqual([201, 'mgmt-1']);
    const { uid } = (await factory.json()) as { uid: string };
    const created = await m.call('POST', `/factories/${uid}/webhooks`, { body: { name: 'w' }, headers });
    const { webhook, secret } = (await created.json()) as { webhook: { uid: string }; secret: string };
    const delivered = await m.call('POST', `http://agentrun.test/webhooks/w/${webhook.uid}`, {
      key: null,
      headers: { authorization: `Bearer ${secret}`, 'x-request-id': 'hook-1' },
      body: { n: 1 },
    });
    expect([delivered.status, delivered.headers.get('x-request-id')]).toEqual([202, 'hook-1']);
    const bad = await m.call('PATCH', `/factories/${uid}/webhooks/${webhook.uid}`, { body: { enabled: 'yes' }, headers });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ request_id: 'mgmt-1' });
  });

  it('is on 401, 404, 405, ingress answers and unexpected errors, and reaches onError', async () => {
    for (const res of [
      await h.call('GET', '/agent/runs', { key: null }),
      await h.call('GET', '/nowhere'),
      await h.call('DELETE', '/agent/runs'),
      await h.call('POST', 'http://agentrun.test/webhooks/w/nope', { body: {} }),
    ]) {
      const id = res.headers.get('x-request-id');
      expect(id).toEqual(expect.any(String));
      expect(await res.json()).toMatchObject({ request_id: id });
    }
    const seen: unknown[] = [];
    const broken = await setup({
      onError: (_error, _request, context) => seen.push(context?.requestId),
      authenticate: () => {
        throw new Error('boom');
      },
    });
    const res = await broken.call('GET', '/agent/runs', { headers: { 'x-request-id': 'trace-1' } });
    expect(res.status).toBe(500);
    expect(res.headers.get('x-request-id')).toBe('trace-1');
    expect(seen).toEqual(['trace-1']);
  });
});
