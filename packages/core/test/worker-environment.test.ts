import { createMemoryStore } from '@agentrun/store-memory';
import { describe, expect, it } from 'vitest';
import type { ExecutionInput, Executor } from '../src/index.js';
import { setup } from './helpers.js';

// What an executor receives of a run's environment (docs/repositories.md, "What an executor
// receives"): the environment with its variables' team secrets opened, as values that print as
// `[secret]`; a run whose environment is gone since it was created ends FAILED without executing.

const KEY = Buffer.alloc(32, 9).toString('base64');

describe("a run's environment in the executor input", () => {
  it('hands the executor the environment with secrets opened but hidden from printing; a gone one fails the run', async () => {
    const h = await setup({ secretKey: KEY, store: createMemoryStore() });
    const inputs: ExecutionInput[] = [];
    const executor: Executor = {
      async execute(input, ctx) {
        inputs.push(input);
        const token = input.environment?.variables.NPM_TOKEN?.reveal();
        if (token === undefined) return { status: 'succeeded' };
        // An agent that prints its variables: the values stay out of the transcript and the status.
        await ctx.report({ message: `using ${token}` });
        await ctx.record?.([
          { type: 'output', data: { text: `NPM_TOKEN=${token}` } },
          { type: 'artifact', data: { note: token } },
        ]);
        // Usage passes the secrets' scrubbing unchanged (numbers only).
        await ctx.reportUsage?.({ compute_cost: 3 });
        return { status: 'succeeded', message: `done with ${token}` };
      },
    };
    const ok = async (method: string, path: string, body?: unknown) => {
      const answer = await h.json<Record<string, string>>(method, path, body === undefined ? {} : { body });
      expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
      return answer.body;
    };
    await ok('PUT', '/team/secrets/npm-token', { value: 'npm-secret-value' });
    await ok('PUT', '/team/secrets/git-read', { value: 'git-read-token' });
    // An <owner>/<repo> name must be registered for the team when the environment is saved.
    const unregistered = await h.json<Record<string, unknown>>('POST', '/environments', {
      body: { name: 'web', repositories: [{ repository: 'acme/web', ref: 'main' }] },
    });
    expect(unregistered.status).toBe(400);
    expect(JSON.stringify(unregistered.body)).toContain('repositories.0.repository');
    expect(JSON.stringify(unregistered.body)).toContain('no repository named acme/web');
    await ok('POST', '/repositories', { name: 'acme/web', url: 'https://git.example.com/acme/web.git', credential_secret: 'git-read' });
    const env = await ok('POST', '/environments', {
      name: 'web',
      repositories: [
        { repository: 'acme/web', ref: 'main' },
        { repository: 'https://git.example.com/acme/tools.git', ref: 'v1' },
      ],
      setup: ['npm ci'],
      variables: { NPM_TOKEN: 'npm-token' },
    });
    const worker = h.handler.app.worker({ executor, pollIntervalMs: 20 });
    const runWith = async (config: Record<string, unknown>) => {
      const { run_id } = await ok('POST', '/agent/run', { prompt: 'p', config });
      await worker.poll();
      await worker.idle();
      return { run_id, ...(await ok('GET', `/agent/runs/${run_id}`)) } as Record<string, unknown> & { run_id: string };
    };

    const firstRun = await runWith({ environment_id: env.id });
    expect(firstRun.state).toBe('SUCCEEDED');
    expect(firstRun.request_usage).toEqual({ compute_cost: 3 });
    const [first] = inputs;
    expect(first?.environment).toMatchObject({
      id: env.id,
      name: 'web',
      repositories: [
        { repository: 'acme/web', url: 'https://git.example.com/acme/web.git', ref: 'main', directory: 'web' },
        {
          repository: 'https://git.example.com/acme/tools.git',
          url: 'https://git.example.com/acme/tools.git',
          ref: 'v1',
          directory: 'tools',
        },
      ],
      setup: ['npm ci'],
      setupTimeoutSeconds: 600,
    });
    // The registered repository's credential, opened and hidden as the variables are; none for a URL.
    expect(first?.environment?.repositories[0]?.credential?.reveal()).toBe('git-read-token');
    expect(first?.environment?.repositories[1]?.credential).toBeUndefined();
    // Each repository names the run's team: a caching reader keeps each team's reads apart.
    expect(first?.environment?.repositories.map((r) => r.team)).toEqual([h.principal.team_uid, h.principal.team_uid]);
    expect(JSON.stringify(first?.environment)).not.toContain('git-read-token');
    const token = first?.environment?.variables.NPM_TOKEN;
    expect(token?.reveal()).toBe('npm-secret-value');
    expect(JSON.stringify(first?.environment)).not.toContain('npm-secret-value');
    expect(`${token}`).toBe('[secret]');
    const events = await h.json<Record<string, unknown>>('GET', `/agent/runs/${firstRun.run_id}/events`);
    expect(JSON.stringify(events.body)).toContain('NPM_TOKEN=[secret]');
    expect(JSON.stringify(events.body)).not.toContain('npm-secret-value');
    expect(JSON.stringify(await ok('GET', `/agent/runs/${firstRun.run_id}`))).not.toContain('npm-secret-value');

    expect((await runWith({})).state).toBe('SUCCEEDED');
    expect(inputs[1]?.environment).toBeUndefined();

    // Deleted after the run was created: the run fails without reaching the executor.
    const { run_id } = await ok('POST', '/agent/run', { prompt: 'p', config: { environment_id: env.id } });
    await ok('DELETE', `/environments/${env.id}`);
    await worker.poll();
    await worker.idle();
    const failed = (await ok('GET', `/agent/runs/${run_id}`)) as unknown as { state: string; status_message: Record<string, unknown> };
    expect(failed.state).toBe('FAILED');
    expect(failed.status_message).toMatchObject({ error_code: 'environment_unavailable' });
    expect(inputs).toHaveLength(2);

    // A repository unregistered after the run was created fails it the same way.
    const again = await ok('POST', '/environments', { name: 'web2', repositories: [{ repository: 'acme/web' }] });
    const second = await ok('POST', '/agent/run', { prompt: 'p', config: { environment_id: again.id } });
    await ok('DELETE', '/repositories/acme/web');
    await worker.poll();
    await worker.idle();
    const gone = (await ok('GET', `/agent/runs/${second.run_id}`)) as unknown as { state: string; status_message: Record<string, unknown> };
    expect(gone.state).toBe('FAILED');
    expect(gone.status_message).toMatchObject({
      error_code: 'environment_unavailable',
      message: 'environment web2: repository acme/web is no longer registered',
    });
    expect(inputs).toHaveLength(2);
    await worker.stop();
  });

  it("hands a container executor the environment's image and limits, camelCased; none when it sets none", async () => {
    const h = await setup({ secretKey: KEY, store: createMemoryStore() });
    const inputs: ExecutionInput[] = [];
    const worker = h.handler.app.worker({
      executor: {
        async execute(input) {
          inputs.push(input);
          return { status: 'succeeded' };
        },
      },
      pollIntervalMs: 20,
    });
    const run = async (body: Record<string, unknown>) => {
      const env = await h.json<{ id: string }>('POST', '/environments', { body });
      expect(env.status).toBe(201);
      const created = await h.json<{ run_id: string }>('POST', '/agent/run', {
        body: { prompt: 'p', config: { environment_id: env.body.id } },
      });
      expect(created.status).toBe(200);
      await worker.poll();
      await worker.idle();
      return inputs.at(-1)?.environment;
    };
    const boxed = await run({
      name: 'boxed',
      image: 'localhost/agentrun-busybox:1',
      limits: { memory_mb: 512, cpus: 0.5, pids: 64, network: 'none' },
    });
    expect(boxed).toMatchObject({ image: 'localhost/agentrun-busybox:1', limits: { memoryMb: 512, cpus: 0.5, pids: 64, network: 'none' } });
    const plain = await run({ name: 'plain' });
    expect(plain).toBeDefined();
    expect(plain).not.toHaveProperty('image');
    expect(plain).not.toHaveProperty('limits');
    await worker.stop();
  });
});
