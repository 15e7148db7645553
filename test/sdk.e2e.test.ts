import { fakeSkillRepositories, makeRun, seedEnvironments } from '@agentrun/core/testing';
import { type ReferenceServer, startReferenceServer } from '@agentrun/server';
import OzAPI, { AuthenticationError, BadRequestError, ConflictError, NotFoundError } from 'oz-agent-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The published client `oz-agent-sdk`, unchanged, against the reference server (docs/run-api.md).
describe('oz-agent-sdk against the reference server', () => {
  let server: ReferenceServer;
  let client: OzAPI;
  /** The skills the runs below name, in a fake repository registered for the server's team (docs/repositories.md). */
  const skills = fakeSkillRepositories(['acme/tools:.claude/skills/deploy/SKILL.md', 'acme/tools:deploy']);

  beforeAll(async () => {
    server = await startReferenceServer({ port: 0, demoDurationMs: 150, pollIntervalMs: 50, repositories: skills.reader });
    await skills.register(server.store, server.principal.team_uid);
    // Runs below name these environments: an unknown environment_id is a 400.
    await seedEnvironments(server.store, server.principal.team_uid, 'env-1', 'e');
    client = new OzAPI({ apiKey: server.apiKey, baseURL: `${server.url}/api/v1`, maxRetries: 0 });
  });
  afterAll(() => server.close());

  const waitForState = async (runId: string, states: string[], timeoutMs = 5000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const run = await client.agent.runs.retrieve(runId);
      if (states.includes(run.state)) return run;
      if (Date.now() > deadline) throw new Error(`run ${runId} stayed ${run.state}, wanted ${states.join('|')}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  it('runs an agent and retrieves it through to SUCCEEDED', async () => {
    const started = await client.agent.run({
      prompt: 'Fix the bug in auth.go\nMore detail here',
      config: { model_id: 'model-x', environment_id: 'env-1', mcp_servers: { gh: { url: 'https://mcp.example.com/sse' } } },
    });
    expect(started).toEqual({ run_id: expect.any(String), task_id: started.run_id, state: 'QUEUED' });

    const done = await waitForState(started.run_id, ['SUCCEEDED']);
    expect(done).toMatchObject({
      run_id: started.run_id,
      task_id: started.run_id,
      title: 'Fix the bug in auth.go',
      prompt: 'Fix the bug in auth.go\nMore detail here',
      source: 'API',
      creator: { type: 'service_account', uid: 'bootstrap' },
      agent_config: { model_id: 'model-x', environment_id: 'env-1' },
      status_message: { message: 'Done' },
    });
    expect(Date.parse(done.updated_at)).toBeGreaterThanOrEqual(Date.parse(done.created_at));
    expect(done.started_at).toEqual(expect.any(String));
  });

  it('sends every field of its AgentRunParams and AmbientAgentConfig, all accepted and stored', async () => {
    const { run_id } = await client.agent.run({
      prompt: 'every field',
      title: 'All of them',
      skill: 'acme/tools:deploy',
      team: true,
      conversation_id: 'conv-ts',
      images: [{ mime_type: 'image/png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('base64') }],
      config: {
        name: 'ts-all',
        model_id: 'm',
        base_prompt: 'b',
        environment_id: 'e',
        skill_spec: 'acme/tools:deploy',
        computer_use_enabled: true,
        worker_host: 'warp',
        mcp_servers: { gh: { url: 'https://mcp.example.com/sse', headers: { 'X-Token': 't' } } },
      },
    });
    const run = await client.agent.runs.retrieve(run_id);
    expect(run.agent_config).toMatchObject({ name: 'ts-all', computer_use_enabled: true, worker_host: 'warp' });
    expect(run.conversation_id).toBe('conv-ts');
  });

  it('fails a run whose prompt asks it to', async () => {
    const { run_id } = await client.agent.run({ prompt: 'please fail this' });
    const run = await waitForState(run_id, ['FAILED']);
    expect(run.status_message?.message).toMatch(/fail/);
  });

  it('names a run after its skill', async () => {
    const { run_id } = await client.agent.run({ skill: 'acme/tools:.claude/skills/deploy/SKILL.md' });
    const run = await client.agent.runs.retrieve(run_id);
    expect(run.agent_config).toMatchObject({ name: 'deploy', skill_spec: 'acme/tools:.claude/skills/deploy/SKILL.md' });
    expect(run.agent_skill).toMatchObject({
      name: 'deploy',
      description: 'The deploy skill.',
      full_path: '.claude/skills/deploy/SKILL.md',
    });
  });

  it('lists the team’s skills with agent.list(), with each of its parameters', async () => {
    const { agents } = await client.agent.list();
    expect(agents).toEqual([
      {
        name: 'deploy',
        variants: [
          {
            id: 'acme/tools:.claude/skills/deploy/SKILL.md',
            base_prompt: 'Do deploy.',
            description: 'The deploy skill.',
            environments: [],
            source: { owner: 'acme', name: 'tools', skill_path: '.claude/skills/deploy/SKILL.md' },
          },
        ],
      },
    ]);
    const sorted = await client.agent.list({ repo: 'acme/tools', sort_by: 'last_run', refresh: true });
    expect(sorted.agents[0]?.variants[0]?.last_run_timestamp).toEqual(expect.any(String));
  });

  it('lists with filters and walks cursor pages', async () => {
    const name = `batch-${Date.now()}`;
    const ids: string[] = [];
    for (let i = 0; i < 7; i++)
      ids.push((await client.agent.run({ prompt: `task ${i}`, config: { name, model_id: i % 2 ? 'odd' : 'even' } })).run_id);

    // The stable walk: the demo executor moves these runs along meanwhile, and in the default
    // updated_at order a run updated mid-walk jumps behind the cursor and is skipped; created_at
    // never changes (docs/run-api.md, "Walking every run"). The SDK's params lack sort_by but send it as given.
    const seen: { run_id: string; created_at: string }[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const params = { name, limit: 3, sort_by: 'created_at', ...(cursor ? { cursor } : {}) };
      const res = await client.agent.runs.list(params);
      expect(res.runs.length).toBeLessThanOrEqual(3);
      seen.push(...res.runs);
      if (!res.page_info.has_next_page) break;
      cursor = res.page_info.next_cursor;
      expect(cursor).toEqual(expect.any(String));
    }
    expect(seen.map((r) => r.run_id).sort()).toEqual([...ids].sort());
    // Newest first by creation (sort_order desc, the default), ties on the instant by run ID.
    const key = (r: { run_id: string; created_at: string }) => `${r.created_at} ${r.run_id}`;
    const byCreation = [...seen].sort((a, b) => (key(a) < key(b) ? 1 : -1));
    expect(seen).toEqual(byCreation);

    const odd = await client.agent.runs.list({ name, model_id: 'odd' });
    expect(odd.runs.map((r) => r.run_id).sort()).toEqual(ids.filter((_, i) => i % 2).sort());

    const queuedOrDone = await client.agent.runs.list({ name, state: ['QUEUED', 'CLAIMED', 'INPROGRESS', 'SUCCEEDED'], limit: 50 });
    expect(queuedOrDone.runs).toHaveLength(7);
    const none = await client.agent.runs.list({ name, state: ['CANCELLED'] });
    expect(none).toEqual({ runs: [], page_info: { has_next_page: false } });

    const bySource = await client.agent.runs.list({ name, source: 'API', creator: 'bootstrap', q: 'TASK 3' });
    expect(bySource.runs.map((r) => r.run_id)).toEqual([ids[3]]);
  });

  it('cancels a run and returns its ID as a string: the bare ID as text/plain', async () => {
    const { run_id } = await client.agent.run({ prompt: 'long job' });
    const { data: cancelled, response } = await client.agent.runs.cancel(run_id).withResponse();
    expect(cancelled).toBe(run_id);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect((await client.agent.runs.retrieve(run_id)).state).toBe('CANCELLED');
  });

  it('replays a cancel with the same Idempotency-Key as the same bare ID, still text/plain', async () => {
    const { run_id } = await client.agent.run({ prompt: 'long job' });
    const headers = { 'Idempotency-Key': `cancel-${run_id}` };
    expect(await client.agent.runs.cancel(run_id, { headers })).toBe(run_id);
    const { data, response } = await client.agent.runs.cancel(run_id, { headers }).withResponse();
    expect(data).toBe(run_id);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  });

  it('cancelling a finished run is a BadRequestError', async () => {
    const { run_id } = await client.agent.run({ prompt: 'quick' });
    await waitForState(run_id, ['SUCCEEDED']);
    await expect(client.agent.runs.cancel(run_id)).rejects.toBeInstanceOf(BadRequestError);
  });

  it('cancels a PENDING and a BLOCKED run (contract §3: every active state is cancellable)', async () => {
    const team = server.principal.team_uid;
    const pending = makeRun({ teamUid: team, state: 'PENDING' });
    const blocked = makeRun({ teamUid: team, state: 'BLOCKED' });
    for (const run of [pending, blocked]) await server.store.runs.create({ run, attachments: [] });
    for (const run of [pending, blocked]) {
      expect(await client.agent.runs.cancel(run.id)).toBe(run.id);
      expect((await client.agent.runs.retrieve(run.id)).state).toBe('CANCELLED');
    }
  });

  it('reads the run fields the published client reads: started_at, source, conversation_id, request_usage (a run that reported none has none)', async () => {
    const { run_id } = await client.agent.run({ prompt: 'quick', conversation_id: 'conv-23' });
    const run = await waitForState(run_id, ['SUCCEEDED']);
    expect(run).toMatchObject({ source: 'API', conversation_id: 'conv-23', started_at: expect.any(String) });
    expect(Date.parse(run.started_at as string)).toBeGreaterThanOrEqual(Date.parse(run.created_at));
    expect(run.request_usage).toBeUndefined();
    const usage = makeRun({
      teamUid: server.principal.team_uid,
      state: 'SUCCEEDED',
      requestUsage: { compute_cost: 2, inference_cost: 0.5 },
    });
    await server.store.runs.create({ run: usage, attachments: [] });
    expect((await client.agent.runs.retrieve(usage.id)).request_usage).toEqual({ compute_cost: 2, inference_cost: 0.5 });
  });

  it('follows up through the raw client methods and re-queues a finished run', async () => {
    const { run_id } = await client.agent.run({ prompt: 'quick' });
    await waitForState(run_id, ['SUCCEEDED']);
    const res = await client.post<{ run_id: string; state: string }>(`/agent/runs/${run_id}/followups`, { body: { message: 'and more' } });
    expect(res).toEqual({ run_id, state: 'QUEUED' });
    await waitForState(run_id, ['SUCCEEDED']);
    await client.agent.runs
      .cancel((await client.agent.run({ prompt: 'x' })).run_id)
      .then((id) =>
        expect(client.post(`/agent/runs/${id}/followups`, { body: { message: 'again' } })).rejects.toBeInstanceOf(ConflictError),
      );
  });

  it('creates, retrieves, updates, lists, pauses, resumes and deletes a schedule (docs/schedules.md)', async () => {
    const created = await client.agent.schedules.create({
      cron_schedule: '0 9 * * *',
      name: 'Daily Code Review',
      prompt: 'Review open pull requests and provide feedback',
      enabled: true,
      agent_config: { model_id: 'model-x', environment_id: 'env-1' },
      team: true,
    });
    expect(created).toMatchObject({
      id: expect.any(String),
      name: 'Daily Code Review',
      cron_schedule: '0 9 * * *',
      enabled: true,
      agent_config: { model_id: 'model-x', environment_id: 'env-1' },
      history: { last_ran: null, next_run: expect.any(String) },
      last_spawn_error: null,
      scope: { type: 'Team' },
      created_by: { type: 'service_account', uid: 'bootstrap' },
    });
    expect(Date.parse(created.history?.next_run as string)).toBeGreaterThan(Date.now());
    expect(await client.agent.schedules.retrieve(created.id)).toEqual(created);
    const updated = await client.agent.schedules.update(created.id, {
      cron_schedule: '*/30 * * * *',
      enabled: true,
      name: 'Half-hourly review',
      prompt: 'Review again',
    });
    expect(updated).toMatchObject({
      id: created.id,
      cron_schedule: '*/30 * * * *',
      name: 'Half-hourly review',
      agent_config: created.agent_config,
    });
    expect((await client.agent.schedules.list()).schedules.map((s) => s.id)).toContain(created.id);
    expect(await client.agent.schedules.pause(created.id)).toMatchObject({ enabled: false, history: { next_run: null } });
    expect(await client.agent.schedules.resume(created.id)).toMatchObject({ enabled: true, history: { next_run: expect.any(String) } });
    expect(await client.agent.schedules.delete(created.id)).toEqual({ success: true });
    await expect(client.agent.schedules.retrieve(created.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.agent.schedules.create({ cron_schedule: 'every day', name: 'x', prompt: 'y' })).rejects.toBeInstanceOf(
      BadRequestError,
    );
    // Runs a schedule started are listed by it (none yet).
    expect((await client.agent.runs.list({ schedule_id: created.id })).runs).toEqual([]);
  });

  it('maps errors to the client’s error classes', async () => {
    await expect(client.agent.runs.retrieve('no-such-run')).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.agent.run({} as never)).rejects.toBeInstanceOf(BadRequestError);
    await expect(client.agent.run({ prompt: 'x', config: { idle_timeout_minutes: 0 } } as never)).rejects.toBeInstanceOf(BadRequestError);
    await expect(client.agent.runs.list({ limit: 0 })).rejects.toBeInstanceOf(BadRequestError);
    await expect(client.agent.runs.list({ cursor: 'garbage' })).rejects.toBeInstanceOf(BadRequestError);
    const anonymous = new OzAPI({ apiKey: 'ar_wrong-key-wrong-key', baseURL: `${server.url}/api/v1`, maxRetries: 0 });
    await expect(anonymous.agent.runs.list()).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('honours Idempotency-Key through the client’s request options', async () => {
    const key = `key-${Date.now()}`;
    const a = await client.agent.run({ prompt: 'once' }, { idempotencyKey: key, headers: { 'Idempotency-Key': key } });
    const b = await client.agent.run({ prompt: 'once' }, { headers: { 'Idempotency-Key': key } });
    expect(b).toEqual(a);
    await expect(client.agent.run({ prompt: 'twice' }, { headers: { 'Idempotency-Key': key } })).rejects.toBeInstanceOf(ConflictError);
  });
});
