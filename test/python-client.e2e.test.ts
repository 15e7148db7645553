import { Agent, request as httpRequest } from 'node:http';
import { createApiKey } from '@agentrun/core';
import { fakeSkillRepositories, makeEnvironment, makeRun, makeSecret, seedEnvironments } from '@agentrun/core/testing';
import { type ReferenceServer, startReferenceServer } from '@agentrun/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The published Python client `oz-agent-sdk` (Stainless-generated,
// github.com/warpdotdev/oz-sdk-python) against the reference server, each request written out byte
// for byte as that client sends it, over a real socket. Where each part comes from, in that
// repository:
// - headers: src/oz_agent_sdk/_base_client.py (`default_headers`: Accept, Content-Type, User-Agent
//   `OzAPI/Python <version>`, `platform_headers()`; `_build_headers`: x-stainless-retry-count and
//   x-stainless-read-timeout) and _client.py (`Authorization: Bearer`, `X-Stainless-Async: false`);
//   httpx adds Host, Accept-Encoding, Connection and Content-Length (`Content-Length: 0` on a POST
//   without content). A GET drops Content-Type (`_build_request`: `headers.pop("Content-Type")`).
// - JSON bodies: `openapi_dumps` (json.dumps with `ensure_ascii=False, separators=(",", ":")`), the
//   compact UTF-8 that JSON.stringify also writes; keys in the order of the resource method's dict.
// - responses: `cast_to=str` (cancel) returns `response.text` as is; models parse the JSON.

const PACKAGE_VERSION = '0.16.0'; // src/oz_agent_sdk/_version.py

let server: ReferenceServer;
let agent: Agent;
/** The skills the runs below name, in a fake repository registered for the server's team (docs/repositories.md). */
const skills = fakeSkillRepositories(['acme/tools:.claude/skills/deploy/SKILL.md', 'acme/tools:deploy']);

beforeAll(async () => {
  // Runs stay in progress long enough to be followed up and cancelled.
  server = await startReferenceServer({ port: 0, demoDurationMs: 60_000, pollIntervalMs: 20, repositories: skills.reader });
  await skills.register(server.store, server.principal.team_uid);
  agent = new Agent({ keepAlive: true });
  // Runs below name environment `env-1`: an unknown environment_id is a 400.
  await seedEnvironments(server.store, server.principal.team_uid, 'env-1');
  // …and the team secrets they name for a harness's key: an unknown one is a 400 too.
  for (const name of ['CLAUDE_KEY', 'CODEX_KEY', 'ANTHROPIC'])
    await server.store.secrets.put(makeSecret({ teamUid: server.principal.team_uid, name }));
});
afterAll(async () => {
  agent.destroy();
  await server.close();
});

interface Sent {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as text, as `response.text` gives it. */
  text: string;
}

/**
 * One request as the Python client builds it (sync client, first attempt). `extra` headers are a
 * method's own (`X-Warp-Team-Uid`); `security={}` (a public call) sends no Authorization.
 */
function pythonRequest(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  json?: unknown,
  { extra = {}, security = true, key = server.apiKey }: { extra?: Record<string, string>; security?: boolean; key?: string } = {},
): Promise<Sent> {
  const url = new URL(`${server.url}/api/v1${path}`);
  const body = json === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(json), 'utf8');
  const headers: Record<string, string> = {
    Host: url.host,
    'Accept-Encoding': 'gzip, deflate',
    Connection: 'keep-alive',
    Accept: 'application/json',
    ...(method === 'GET' ? {} : { 'Content-Type': 'application/json' }),
    'User-Agent': `OzAPI/Python ${PACKAGE_VERSION}`,
    'X-Stainless-Lang': 'python',
    'X-Stainless-Package-Version': PACKAGE_VERSION,
    'X-Stainless-OS': 'Linux',
    'X-Stainless-Arch': 'x64',
    'X-Stainless-Runtime': 'CPython',
    'X-Stainless-Runtime-Version': '3.12.3',
    'X-Stainless-Async': 'false',
    ...(security ? { Authorization: `Bearer ${key}` } : {}),
    ...extra,
    'x-stainless-retry-count': '0',
    'x-stainless-read-timeout': '60',
    ...(method === 'GET' ? {} : { 'Content-Length': String(body.byteLength) }),
  };
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path: url.pathname + url.search, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const ok = (sent: Sent) => {
  expect(sent.status, sent.text).toBe(200);
  return sent;
};
/** A management API create: 201. */
const ok2 = (sent: Sent) => {
  expect(sent.status, sent.text).toBe(201);
  return sent;
};
const runOf = async (runId: string) => JSON.parse(ok(await pythonRequest('GET', `/agent/runs/${runId}`)).text);

describe('the Python oz-agent-sdk, request by request', () => {
  it('client.agent.run(...) with every field set (types/agent_run_params.py, types/ambient_agent_config_param.py)', async () => {
    const parent = JSON.parse(ok(await pythonRequest('POST', '/agent/run', { prompt: 'parent' })).text).run_id;
    // resources/agent/agent.py `run()`: the body dict in its (alphabetical) order.
    const body = {
      agent_identity_uid: 'agent-uid-1',
      attachments: [
        // `Attachment.data` has PropertyInfo(format="base64"): bytes become base64.b64encode(...).decode().
        { data: Buffer.from('log line\n').toString('base64'), file_name: 'trace.txt', mime_type: 'text/plain' },
        { data: Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('base64'), file_name: 'shot.png', mime_type: 'image/png' },
      ],
      config: {
        base_prompt: 'Be brief.',
        computer_use_enabled: true,
        credential_strategy: 'EXECUTOR',
        environment_id: 'env-1',
        harness: { model_id: 'claude-haiku-4-5', reasoning_level: 'high', type: 'claude' },
        harness_auth_secrets: { claude_auth_secret_name: 'CLAUDE_KEY', codex_auth_secret_name: 'CODEX_KEY' },
        idle_timeout_minutes: 30,
        inference_providers: { aws: { disabled: false, region: 'eu-west-1', role_arn: 'arn:aws:iam::123456789012:role/bedrock' } },
        mcp_servers: {
          gh: { headers: { 'X-Token': 't' }, url: 'https://mcp.example.com/sse' },
          local: { args: ['my-mcp'], command: 'npx', env: { DEBUG: '1' } },
          shared: { warp_id: '6f1c1e0e-0000-4000-8000-000000000000' },
        },
        memory_stores: [{ access: 'read_write', instructions: 'Keep notes here.', uid: 'mem-1' }],
        model_id: 'claude-sonnet',
        name: 'nightly',
        runner_id: 'runner-1',
        session_sharing: { public_access: 'EDITOR' },
        skill_spec: 'acme/tools:.claude/skills/deploy/SKILL.md',
        skills: ['acme/tools:.claude/skills/deploy/SKILL.md'],
        worker_host: 'warp',
      },
      conversation_id: 'conv-1',
      interactive: true,
      metadata: { ticket_id: 'VIS-238', ticket_source: 'linear' },
      mode: 'orchestrate',
      on_behalf_of: 'someone@example.com',
      parent_run_id: parent,
      prompt: 'Fix the flaky test — ünïcode and 😀 as UTF-8',
      skill: 'acme/tools:deploy',
      team: true,
      title: 'Flaky test',
    };
    const started = ok(await pythonRequest('POST', '/agent/run', body));
    expect(started.headers['content-type']).toMatch(/^application\/json/);
    const { run_id, task_id, state } = JSON.parse(started.text);
    expect({ task_id, state }).toEqual({ task_id: run_id, state: 'QUEUED' });

    // client.agent.runs.retrieve(run_id): what docs/run-api.md lists ("The run: `RunItem`") is
    // stored and shown.
    const run = await runOf(run_id);
    expect(run).toMatchObject({
      prompt: body.prompt,
      title: 'Flaky test',
      conversation_id: 'conv-1',
      parent_run_id: parent,
      source: 'API',
      execution_location: 'REMOTE',
    });
    // client.agent.runs.list(ancestor_run_id=parent) (types/agent/run_list_params.py).
    const children = JSON.parse(ok(await pythonRequest('GET', `/agent/runs?ancestor_run_id=${parent}`)).text);
    expect(children.runs.map((r: { run_id: string }) => r.run_id)).toEqual([run_id]);
    expect(run.agent_config).toMatchObject({
      name: 'nightly',
      model_id: 'claude-sonnet',
      computer_use_enabled: true,
      idle_timeout_minutes: 30,
      worker_host: 'warp',
      harness: { type: 'claude', model_id: 'claude-haiku-4-5', reasoning_level: 'high' },
      harness_auth_secrets: body.config.harness_auth_secrets,
      credential_strategy: 'EXECUTOR',
      runner_id: 'runner-1',
    });
    expect(run.attachments).toEqual([
      { file_name: 'trace.txt', mime_type: 'text/plain', size: 9 },
      { file_name: 'shot.png', mime_type: 'image/png', size: 4 },
    ]);
  });

  it('older releases: `images`, and harness as { auth_secret_name, type } (the AgentRunParams of earlier versions)', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]).toString('base64');
    const { run_id } = JSON.parse(
      ok(
        await pythonRequest('POST', '/agent/run', {
          config: { harness: { auth_secret_name: 'ANTHROPIC', type: 'claude' }, worker_host: 'self-hosted-1' },
          conversation_id: 'conv-2',
          images: [{ data: png, mime_type: 'image/png' }],
          prompt: 'Look at this',
          team: false,
          title: 'Screenshot',
        }),
      ).text,
    );
    const run = await runOf(run_id);
    expect(run.agent_config).toMatchObject({ harness: { auth_secret_name: 'ANTHROPIC', type: 'claude' }, worker_host: 'self-hosted-1' });
    expect(run.attachments).toEqual([{ file_name: 'image-1.png', mime_type: 'image/png', size: 6 }]);
  });

  it('the newest releases: agent.run() posts to /agent/runs (its api.md lists post /agent/runs), the same call', async () => {
    const { run_id, task_id, state } = JSON.parse(
      ok(await pythonRequest('POST', '/agent/runs', { prompt: 'via /agent/runs', title: 'Alias' })).text,
    );
    expect({ task_id, state }).toEqual({ task_id: run_id, state: 'QUEUED' });
    expect(await runOf(run_id)).toMatchObject({ prompt: 'via /agent/runs', title: 'Alias' });
  });

  it('the first release: { prompt, config, title } with a harness of its type only', async () => {
    ok(await pythonRequest('POST', '/agent/run', { prompt: 'p', config: { harness: { type: 'oz' } }, title: 't' }));
  });

  it('client.agent.schedules: create, retrieve, update, list, pause, resume, delete (resources/agent/schedules.py)', async () => {
    // create(): the dict of schedules.py in its order; omitted arguments are left out.
    const created = await pythonRequest('POST', '/agent/schedules', {
      cron_schedule: '0 9 * * 1-5',
      name: 'Weekday triage',
      agent_config: { model_id: 'model-x', environment_id: 'env-1' },
      enabled: true,
      mode: 'normal',
      prompt: 'Triage new issues',
      team: true,
    });
    expect(created.status, created.text).toBe(201);
    const item = JSON.parse(created.text);
    // types/agent/scheduled_agent_item.py: every required field, history and scope as it reads them.
    expect(item).toMatchObject({
      id: expect.any(String),
      created_at: expect.any(String),
      updated_at: expect.any(String),
      cron_schedule: '0 9 * * 1-5',
      enabled: true,
      name: 'Weekday triage',
      prompt: 'Triage new issues',
      agent_config: { model_id: 'model-x', environment_id: 'env-1' },
      history: { last_ran: null, next_run: expect.any(String) },
      last_spawn_error: null,
      scope: { type: 'Team', uid: server.principal.team_uid },
    });
    expect(JSON.parse(ok(await pythonRequest('GET', `/agent/schedules/${item.id}`)).text)).toEqual(item);
    // update(): cron_schedule, enabled, name required; prompt omitted keeps it.
    const updated = JSON.parse(
      ok(await pythonRequest('PUT', `/agent/schedules/${item.id}`, { cron_schedule: '0 10 * * 1-5', enabled: true, name: 'Later triage' }))
        .text,
    );
    expect(updated).toMatchObject({ id: item.id, cron_schedule: '0 10 * * 1-5', name: 'Later triage', prompt: 'Triage new issues' });
    const listed = JSON.parse(ok(await pythonRequest('GET', '/agent/schedules')).text);
    expect(listed.schedules.map((s: { id: string }) => s.id)).toContain(item.id);
    // pause() and resume(): POST without content.
    expect(JSON.parse(ok(await pythonRequest('POST', `/agent/schedules/${item.id}/pause`)).text)).toMatchObject({ enabled: false });
    expect(JSON.parse(ok(await pythonRequest('POST', `/agent/schedules/${item.id}/resume`)).text)).toMatchObject({ enabled: true });
    expect(JSON.parse(ok(await pythonRequest('DELETE', `/agent/schedules/${item.id}`)).text)).toEqual({ success: true });
    expect((await pythonRequest('GET', `/agent/schedules/${item.id}`)).status).toBe(404);
    // A skill instead of a prompt ("Required unless agent_config.skill_spec is provided").
    const skilled = await pythonRequest('POST', '/agent/schedules', {
      cron_schedule: '@daily',
      name: 'Deploy',
      agent_config: { skill_spec: 'acme/tools:deploy' },
    });
    expect(skilled.status, skilled.text).toBe(201);
    expect((await pythonRequest('POST', '/agent/schedules', { cron_schedule: '@daily', name: 'Nothing to do' })).status).toBe(400);
  });

  it('client.agent.agent_: create, list, update, delete of agent identities (resources/agent/agent_.py)', async () => {
    // create(name=..., description=..., base_model=..., prompt=...): omitted arguments are left out.
    const created = JSON.parse(
      ok2(
        await pythonRequest('POST', '/agent/identities', {
          name: 'Triage bot',
          base_model: 'gpt-x',
          description: 'Triages',
          prompt: 'Be brief',
        }),
      ).text,
    );
    // AgentResponse: uid, name, available, created_at (RFC 3339); the optional fields agentrun keeps.
    expect(created).toEqual({
      uid: expect.any(String),
      name: 'Triage bot',
      available: true,
      description: 'Triages',
      base_model: 'gpt-x',
      prompt: 'Be brief',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updated_at: expect.any(String),
    });
    const other = JSON.parse(ok2(await pythonRequest('POST', '/agent/identities', { name: 'Reviewer' })).text);
    expect(other).toMatchObject({ description: null, base_model: null, prompt: null });
    // list(): ListAgentIdentitiesResponse { agents }, oldest first; list(factory_uid=...) has none linked.
    const listed = JSON.parse(ok(await pythonRequest('GET', '/agent/identities')).text);
    expect(listed.agents.map((a: { uid: string }) => a.uid)).toEqual(expect.arrayContaining([created.uid, other.uid]));
    expect(JSON.parse(ok(await pythonRequest('GET', '/agent/identities?factory_uid=f-1')).text)).toEqual({ agents: [] });
    // update(uid, name=..., description=None, prompt=''): null leaves a field, "" clears it.
    const updated = JSON.parse(
      ok(await pythonRequest('PUT', `/agent/identities/${created.uid}`, { name: 'Triage', description: null, prompt: '' })).text,
    );
    expect(updated).toMatchObject({ uid: created.uid, name: 'Triage', description: 'Triages', base_model: 'gpt-x', prompt: null });
    expect(updated.created_at).toBe(created.created_at);
    // delete(uid): Accept */*, no body read (cast_to=NoneType).
    const deleted = await pythonRequest('DELETE', `/agent/identities/${created.uid}`, undefined, { extra: { Accept: '*/*' } });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await pythonRequest('DELETE', `/agent/identities/${created.uid}`)).status).toBe(404);
    expect((await pythonRequest('PUT', `/agent/identities/${created.uid}`, { name: 'Gone' })).status).toBe(404);
    // Each change is in the audit log, newest first.
    const audit = JSON.parse(ok(await pythonRequest('GET', `/audit/events?target=${created.uid}`)).text);
    expect(audit.events.map((e: { kind: string }) => e.kind)).toEqual([
      'agent_identity.deleted',
      'agent_identity.written',
      'agent_identity.written',
    ]);
    // Fields of the client agentrun does not keep are refused by name, not dropped.
    const refused = await pythonRequest('POST', '/agent/identities', { name: 'With secrets', secrets: [{ name: 'K' }] });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('secrets');
    expect((await pythonRequest('POST', '/agent/identities', { name: '' })).status).toBe(400);
  });

  it('a follow-up: { message, mode } (types/agent/run_submit_followup_params.py)', async () => {
    const { run_id } = JSON.parse(ok(await pythonRequest('POST', '/agent/run', { prompt: 'keep going' })).text);
    const res = ok(await pythonRequest('POST', `/agent/runs/${run_id}/followups`, { message: 'and the docs', mode: 'plan' }));
    expect(JSON.parse(res.text)).toEqual({ run_id, state: expect.any(String) });
  });

  it('client.agent.runs.cancel(run_id) returns the bare ID: POST, no content, read as text (resources/agent/runs.py, cast_to=str)', async () => {
    const { run_id } = JSON.parse(ok(await pythonRequest('POST', '/agent/run', { prompt: 'long job' })).text);
    const res = ok(await pythonRequest('POST', `/agent/runs/${run_id}/cancel`));
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe(run_id); // `response.text`, not `"<id>"`
    expect((await runOf(run_id)).state).toBe('CANCELLED');
  });

  it('cancel of a PENDING and of a BLOCKED run cancels it (contract §3), answering the bare ID', async () => {
    const team = server.principal.team_uid;
    const pending = makeRun({ teamUid: team, state: 'PENDING' });
    const blocked = makeRun({ teamUid: team, state: 'BLOCKED' });
    for (const run of [pending, blocked]) await server.store.runs.create({ run, attachments: [] });
    for (const run of [pending, blocked]) {
      const answer = await pythonRequest('POST', `/agent/runs/${run.id}/cancel`);
      expect([answer.status, answer.text]).toEqual([200, run.id]);
    }
  });

  it('client.agent.sessions.check_redirect(session_uuid): {} while the run is active, its conversation_id once it ended (resources/agent/sessions.py)', async () => {
    // A run the worker started has a session_id (its own ID until its agent reports one); this one
    // is stored as such, since the server's worker is busy with the runs above.
    const started = makeRun({ teamUid: server.principal.team_uid, state: 'INPROGRESS', sessionId: 'sess-py', conversationId: 'conv-s' });
    await server.store.runs.create({ run: started, attachments: [] });
    const run_id = started.id;
    const run = await runOf(run_id);
    const active = ok(await pythonRequest('GET', `/agent/sessions/${run.session_id}/redirect`));
    expect(JSON.parse(active.text)).toEqual({});
    ok(await pythonRequest('POST', `/agent/runs/${run_id}/cancel`));
    expect(JSON.parse(ok(await pythonRequest('GET', `/agent/sessions/${run.session_id}/redirect`)).text)).toEqual({
      conversation_id: 'conv-s',
    });
    expect((await pythonRequest('GET', '/agent/sessions/no-such-session/redirect')).status).toBe(404);
  });

  it('client.agent.runs.list_handoff_attachments(run_id): none, for a run of the team; 404 otherwise', async () => {
    const { run_id } = JSON.parse(ok(await pythonRequest('POST', '/agent/run', { prompt: 'handoff' })).text);
    expect(JSON.parse(ok(await pythonRequest('GET', `/agent/runs/${run_id}/handoff/attachments`)).text)).toEqual({ attachments: [] });
    expect((await pythonRequest('GET', '/agent/runs/no-such-run/handoff/attachments')).status).toBe(404);
  });

  it('cancel with extra_body={} sends `{}`, also the bare ID', async () => {
    const { run_id } = JSON.parse(ok(await pythonRequest('POST', '/agent/run', { prompt: 'long job' })).text);
    expect(ok(await pythonRequest('POST', `/agent/runs/${run_id}/cancel`, {})).text).toBe(run_id);
  });

  it('client.agent.runs.list(state=[...], limit=...) over the socket (query rules: list-clients.test.ts)', async () => {
    const { run_id } = JSON.parse(ok(await pythonRequest('POST', '/agent/run', { prompt: 'to list' })).text);
    ok(await pythonRequest('POST', `/agent/runs/${run_id}/cancel`));
    // `Querystring(array_format="repeat")` (_client.py `qs`): one `state=` per element.
    const res = ok(await pythonRequest('GET', '/agent/runs?limit=50&state=QUEUED&state=INPROGRESS&state=CANCELLED'));
    const page = JSON.parse(res.text) as { runs: { state: string }[]; page_info: { has_next_page: boolean } };
    expect(page.runs.length).toBeGreaterThan(0);
    expect(page.runs.filter((run) => !['QUEUED', 'INPROGRESS', 'CANCELLED'].includes(run.state))).toEqual([]);
    expect(page.runs.some((run) => run.state === 'CANCELLED')).toBe(true);
  });

  it('still checks the types of what it accepts', async () => {
    for (const body of [
      { prompt: 'p', interactive: 'yes' },
      { prompt: 'p', team: 'true' },
      { prompt: 'p', config: { harness: { type: 7 } } },
      { prompt: 'p', config: { worker_host: 1 } },
      { prompt: 'p', config: { computer_use_enabled: 'no' } },
      { prompt: 'p', config: { idle_timeout_minutes: 61 } },
    ]) {
      const res = await pythonRequest('POST', '/agent/run', body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });
});

describe('conversations, factories and their runs (resources/agent/conversations.py, resources/factories/*.py)', () => {
  it('client.agent.conversations.check_redirect(conversation_id): public; a live session only for a conversation agentrun started', async () => {
    // A conversation agentrun starts is named by its first run's ID.
    const { run_id } = JSON.parse(ok(await pythonRequest('POST', '/agent/run', { prompt: 'new conversation' })).text);
    expect((await runOf(run_id)).conversation_id).toBe(run_id);
    const team = server.principal.team_uid;
    const first = makeRun({ teamUid: team, state: 'SUCCEEDED' });
    first.conversationId = first.id;
    const live = makeRun({ teamUid: team, state: 'INPROGRESS', sessionId: 'sess-live', conversationId: first.id });
    live.createdAt = new Date(Date.parse(first.createdAt) + 1000).toISOString();
    // A conversation a caller named: guessable, so never answered, even while its run is live.
    const named = makeRun({ teamUid: team, state: 'INPROGRESS', sessionId: 'sess-named', conversationId: 'conv-1' });
    for (const run of [first, live, named]) await server.store.runs.create({ run, attachments: [] });

    const redirect = async (id: string) => {
      const sent = ok(
        await pythonRequest('GET', `/agent/conversations/${encodeURIComponent(id)}/redirect`, undefined, { security: false }),
      );
      return JSON.parse(sent.text);
    };
    expect(await redirect(first.id)).toEqual({ session_id: 'sess-live' });
    expect(await redirect('conv-1')).toEqual({});
    expect(await redirect(named.id)).toEqual({});
    expect(await redirect('no-such-conversation')).toEqual({});
    ok(await pythonRequest('POST', `/agent/runs/${live.id}/cancel`));
    expect(await redirect(first.id)).toEqual({});
  });

  it("client.factories.list(...) and .get(uid): the team's factories in the Factory shape (types/factory.py), in pages", async () => {
    const created: { uid: string; name: string }[] = [];
    for (const name of ['Py Alpha', 'Py Beta', 'py gamma']) {
      created.push(JSON.parse(ok2(await pythonRequest('POST', '/factories', { name, foreman_agent_identity_uid: `fm-${name}` })).text));
    }
    const [alpha] = created as [{ uid: string; name: string }];
    const got = JSON.parse(ok(await pythonRequest('GET', `/factory/${alpha.uid}`)).text);
    expect(got).toEqual({
      uid: alpha.uid,
      name: 'Py Alpha',
      team_uid: server.principal.team_uid,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      agent_defaults: { default_runner_uid: '', mcp_servers: {}, secrets: [], worker_host: '' },
      code_forge: 'NONE',
      code_forges: ['NONE'],
      credential_strategy: 'EXECUTOR',
      repositories: [],
      scoring: {},
    });
    expect((await pythonRequest('GET', '/factory/no-such-factory')).status).toBe(404);

    // SyncFactoriesCursorPage: `factories`, `page_info.next_cursor`, sent back as `cursor`.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const query = `limit=1&search=py${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = JSON.parse(ok(await pythonRequest('GET', `/factory?${query}`)).text);
      expect(page.factories.length).toBeLessThanOrEqual(1);
      seen.push(...page.factories.map((f: { name: string }) => f.name));
      cursor = page.page_info.has_next_page ? page.page_info.next_cursor : undefined;
    } while (cursor);
    // Oldest first, then by uid: factories made within one millisecond order by their uid.
    const position = (f: { uid: string; created_at: string }) => `${f.created_at} ${f.uid}`;
    const oldestFirst = [...(created as { uid: string; name: string; created_at: string }[])].sort((a, b) =>
      position(a) < position(b) ? -1 : 1,
    );
    expect(seen).toEqual(oldestFirst.map((f) => f.name));
    const beta = JSON.parse(ok(await pythonRequest('GET', '/factory?search=BETA')).text);
    expect(beta.factories.map((f: { name: string }) => f.name)).toEqual(['Py Beta']);
    // Only the caller's own team, whatever team is asked for.
    const mine = `query_team_uid=${server.principal.team_uid}&search=py`;
    expect(JSON.parse(ok(await pythonRequest('GET', `/factory?${mine}`)).text).factories).toHaveLength(3);
    expect(JSON.parse(ok(await pythonRequest('GET', '/factory?query_team_uid=other-team')).text)).toEqual({
      factories: [],
      page_info: { has_next_page: false },
    });
    const viaHeader = await pythonRequest('GET', '/factory', undefined, { extra: { 'X-Warp-Team-Uid': 'other-team' } });
    expect(JSON.parse(ok(viaHeader).text).factories).toEqual([]);
    for (const query of ['limit=0', 'limit=101', 'limit=x', 'cursor=not-a-cursor']) {
      const res = await pythonRequest('GET', `/factory?${query}`);
      expect([query, res.status]).toEqual([query, 400]);
    }
  });

  it('client.factories.runs.create(uid, prompt=..., ticket_ref=..., ticket_url=..., title=...) (types/factories/run_create_*.py)', async () => {
    const factory = JSON.parse(
      ok2(await pythonRequest('POST', '/factories', { name: 'Dispatch', foreman_agent_identity_uid: 'fm-d' })).text,
    );
    const body = {
      prompt: 'Fix REMOTE-123',
      ticket_ref: 'linear:REMOTE-123',
      ticket_url: 'https://linear.app/t/REMOTE-123',
      title: 'Fix it',
    };
    const sent = JSON.parse(ok(await pythonRequest('POST', `/factory/${factory.uid}/runs`, body)).text);
    expect(sent).toEqual({
      factory_uid: factory.uid,
      foreman_agent: 'fm-d',
      run_id: expect.any(String),
      state: 'QUEUED',
      ticket_ref: 'linear:REMOTE-123',
    });
    expect(await runOf(sent.run_id)).toMatchObject({
      prompt: 'Fix REMOTE-123',
      title: 'Fix it',
      agent_identity_uid: 'fm-d',
      source: 'API',
    });
    const ofFactory = JSON.parse(ok(await pythonRequest('GET', `/agent/runs?factory_uid=${factory.uid}`)).text);
    expect(ofFactory.runs.map((r: { run_id: string }) => r.run_id)).toEqual([sent.run_id]);
    // Without a ticket: an adhoc reference is minted.
    const adhoc = JSON.parse(ok(await pythonRequest('POST', `/factory/${factory.uid}/runs`, { prompt: 'p' })).text);
    expect(adhoc.ticket_ref).toBe(`adhoc:${adhoc.run_id}`);
    for (const bad of [
      {},
      { prompt: '  ' },
      { prompt: 'p', ticket_ref: 'no-colon' },
      { prompt: 'p', ticket_url: 'ftp://x' },
      { prompt: 'p', extra: 1 },
    ]) {
      const res = await pythonRequest('POST', `/factory/${factory.uid}/runs`, bad);
      expect([JSON.stringify(bad), res.status]).toEqual([JSON.stringify(bad), 400]);
    }
    expect((await pythonRequest('POST', '/factory/no-such-factory/runs', { prompt: 'p' })).status).toBe(404);
  });
});

describe('client.agent.list_environments(sort_by=...) (types/cloud_environment.py)', () => {
  it("answers the team's environments in the CloudEnvironment shape, each with its newest run", async () => {
    const team = server.principal.team_uid;
    const repositories = [
      { repository: 'acme/tools', ref: 'main', directory: 'tools' },
      { repository: 'https://git.example.com/other.git', ref: 'v1', directory: 'other' },
    ];
    const a = makeEnvironment({ id: 'py-env-a', teamUid: team, repositories, setup: ['npm ci'], updatedAt: '2032-01-01T00:00:00.000Z' });
    const b = makeEnvironment({ id: 'py-env-b', teamUid: team, updatedAt: '2032-01-02T00:00:00.000Z' });
    for (const e of [a, b]) expect((await server.store.environments.put(e)).ok).toBe(true);
    // A run that failed before it started: its workspace setup failed.
    const failed = makeRun({ teamUid: team, state: 'FAILED', config: { environment_id: 'py-env-a' }, title: 'Setup broke' });
    await server.store.runs.create({ run: failed, attachments: [] });

    const { environments } = JSON.parse(ok(await pythonRequest('GET', '/agent/environments')).text);
    expect(environments.slice(0, 2).map((e: { uid: string }) => e.uid)).toEqual(['py-env-b', 'py-env-a']);
    expect(environments[1]).toEqual({
      uid: 'py-env-a',
      config: { name: 'py-env-a', setup_commands: ['npm ci'], github_repos: [{ owner: 'acme', repo: 'tools' }] },
      last_updated: '2032-01-01T00:00:00.000Z',
      setup_failed: true,
      scope: { type: 'Team', uid: team },
      last_task_created: {
        id: failed.id,
        title: 'Setup broke',
        state: 'FAILED',
        created_at: failed.createdAt,
        updated_at: failed.updatedAt,
      },
    });
    expect(environments[0]).toMatchObject({ setup_failed: false });
    expect(environments[0]).not.toHaveProperty('last_task_created');
    const byName = JSON.parse(ok(await pythonRequest('GET', '/agent/environments?sort_by=name')).text);
    const names = byName.environments.map((e: { config: { name: string } }) => e.config.name);
    expect(names).toEqual([...names].sort());
    expect((await pythonRequest('GET', '/agent/environments?sort_by=size')).status).toBe(400);
  });
});

describe('client.factories.inbox (resources/factories/inbox.py), first version', () => {
  it('lists runs of factories waiting on a person or failed; mine with is_read, team without; marks per person', async () => {
    const team = server.principal.team_uid;
    // `mine` and the marks are a person's: the server's own key is a service account's.
    const person = { type: 'user' as const, uid: `py-person-${Date.now()}`, team_uid: team, email: 'p@example.com' };
    const userKey = await createApiKey(server.store.apiKeys, person);
    const factory = JSON.parse(ok2(await pythonRequest('POST', '/factories', { name: 'Inbox' })).text);
    const other = JSON.parse(ok2(await pythonRequest('POST', '/factories', { name: 'Inbox other' })).text);
    const at = (s: number) => new Date(Date.parse('2031-01-01T00:00:00.000Z') + s * 1000).toISOString();
    const creator = { type: 'user' as const, uid: person.uid, email: person.email };
    const blocked = makeRun({
      teamUid: team,
      state: 'BLOCKED',
      factoryUid: factory.uid,
      creator,
      title: 'Needs an answer',
      createdAt: at(1),
      updatedAt: at(5),
      statusMessage: { message: 'Which branch?' },
    });
    const failed = makeRun({ teamUid: team, state: 'ERROR', factoryUid: factory.uid, creator, createdAt: at(2), updatedAt: at(6) });
    const someoneElse = makeRun({
      teamUid: team,
      state: 'FAILED',
      factoryUid: other.uid,
      creator: { type: 'user', uid: 'py-other' },
      createdAt: at(3),
      updatedAt: at(7),
    });
    const running = makeRun({ teamUid: team, state: 'INPROGRESS', factoryUid: factory.uid, creator, createdAt: at(4), updatedAt: at(8) });
    const noFactory = makeRun({ teamUid: team, state: 'BLOCKED', creator, createdAt: at(4), updatedAt: at(8) });
    for (const run of [blocked, failed, someoneElse, running, noFactory]) await server.store.runs.create({ run, attachments: [] });
    const asPerson = { key: userKey };
    const list = async (query: string, options: { key?: string } = asPerson) =>
      JSON.parse(ok(await pythonRequest('GET', `/factory-inbox${query}`, undefined, options)).text);

    const mine = await list('');
    expect(mine.items.map((i: { run_id: string }) => i.run_id)).toEqual([failed.id, blocked.id]);
    expect(mine.items[1]).toEqual({
      notification_uid: `blocked:${blocked.id}`,
      kind: 'blocked',
      factory_uid: factory.uid,
      factory_task_uid: blocked.id,
      run_id: blocked.id,
      stage: 'IMPLEMENT',
      title: 'Needs an answer',
      description: 'Which branch?',
      created_at: at(5),
      recipients: [{ uid: person.uid, email: person.email }],
      is_read: false,
    });
    expect(mine.items[0]).toMatchObject({ notification_uid: `failed:${failed.id}`, kind: 'failed', is_read: false });
    // SyncFactoryInboxCursorPage-style paging: one at a time, the same two.
    const first = await list('?limit=1');
    const second = await list(`?limit=1&cursor=${encodeURIComponent(first.page_info.next_cursor)}`);
    expect([...first.items, ...second.items].map((i: { run_id: string }) => i.run_id)).toEqual([failed.id, blocked.id]);
    expect(second.page_info).toEqual({ has_next_page: false });

    const teamWide = await list(`?scope=team&factory_uid=${other.uid}`, {});
    expect(teamWide.items).toHaveLength(1);
    expect(teamWide.items[0]).not.toHaveProperty('is_read');
    expect((await list('?scope=team&recipient_uid=py-other', {})).items.map((i: { run_id: string }) => i.run_id)).toEqual([someoneElse.id]);
    expect((await list(`?scope=mine&recipient_uid=py-other`)).items).toEqual([]);

    // Outcomes in request order: mine (ok), someone else's (not a recipient), unknown (a no-op), no longer notifying.
    const uids = [`blocked:${blocked.id}`, `failed:${someoneElse.id}`, 'blocked:no-such-run', `blocked:${running.id}`];
    const marked = JSON.parse(
      ok(await pythonRequest('POST', '/factory-inbox/notifications/read', { notification_uids: uids }, asPerson)).text,
    );
    expect(marked).toEqual({
      outcomes: [
        { notification_uid: uids[0], ok: true },
        { notification_uid: uids[1], ok: false },
        { notification_uid: uids[2], ok: true },
        { notification_uid: uids[3], ok: false },
      ],
    });
    expect((await list('')).items.map((i: { is_read: boolean }) => i.is_read)).toEqual([false, true]);
    ok(await pythonRequest('POST', '/factory-inbox/notifications/unread', { notification_uids: [uids[0]] }, asPerson));
    expect((await list('')).items.map((i: { is_read: boolean }) => i.is_read)).toEqual([false, false]);

    // A service account: `team` only; `mine` and the marks are 403.
    expect((await pythonRequest('GET', '/factory-inbox')).status).toBe(403);
    expect((await pythonRequest('POST', '/factory-inbox/notifications/read', { notification_uids: [uids[0]] })).status).toBe(403);
    for (const [query, body] of [
      ['?limit=0', undefined],
      ['?scope=everyone', undefined],
      ['?cursor=nope', undefined],
      ['/notifications/read', {}],
      ['/notifications/read', { notification_uids: Array.from({ length: 101 }, (_, i) => `blocked:${i}`) }],
    ] as const) {
      const res = await pythonRequest(body === undefined ? 'GET' : 'POST', `/factory-inbox${query}`, body, asPerson);
      expect([query, res.status]).toEqual([query, 400]);
    }
  });
});

describe('agent.list (GET /agent), as the Python client sends it', () => {
  it('answers with query parameters as httpx writes them (booleans as true/false)', async () => {
    const sent = ok(await pythonRequest('GET', '/agent?include_malformed_skills=true&refresh=false&repo=acme%2Ftools&sort_by=name'));
    const { agents } = JSON.parse(sent.text);
    expect(agents.map((a: { name: string }) => a.name)).toEqual(['deploy']);
    expect(agents[0].variants[0]).toMatchObject({ id: 'acme/tools:.claude/skills/deploy/SKILL.md', description: 'The deploy skill.' });
  });
});
