import { fakeSkillRepositories } from '@agentrun/core/testing';
import { type ReferenceServer, startReferenceServer } from '@agentrun/server';
import { createPostgresStore, type PostgresStore } from '@agentrun/store-postgres';
import OzAPI, { BadRequestError } from 'oz-agent-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The published TypeScript client's run calls on Postgres, the ones no other Postgres test makes
// (test/sdk.e2e.test.ts makes every call on the memory store; test/schedules-postgres.e2e.test.ts
// and test/artifacts.e2e.test.ts the schedule and artifact calls on Postgres): agent.list, run,
// runs.retrieve, runs.cancel and a follow-up. A schema of this file's own, dropped at the end.
const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const schema = `t_sdk_pg_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
let store: PostgresStore;
let server: ReferenceServer;
let client: OzAPI;
/** Outside CI, a machine without the server skips this file (CI=true fails it). */
const reachable = await (async () => {
  const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await probe.connect();
    return true;
  } catch (error) {
    if (process.env.CI === 'true') throw error;
    console.warn(`[sdk-postgres.e2e] no PostgreSQL at ${url}: skipped`);
    return false;
  } finally {
    await probe.end().catch(() => {});
  }
})();
const skills = fakeSkillRepositories(['acme/tools:deploy']);
beforeAll(async () => {
  if (!reachable) return;
  store = createPostgresStore({ connectionString: url, schema });
  await store.migrate();
  server = await startReferenceServer({ port: 0, store, demoDurationMs: 1500, pollIntervalMs: 50, repositories: skills.reader });
  await skills.register(server.store, server.principal.team_uid);
  client = new OzAPI({ apiKey: server.apiKey, baseURL: `${server.url}/api/v1`, maxRetries: 0 });
});
afterAll(async () => {
  if (!reachable) return;
  await server?.close();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
});

const waitFor = async (runId: string, states: string[]) => {
  for (let i = 0; i < 800; i++) {
    const run = await client.agent.runs.retrieve(runId);
    if (states.includes(run.state)) return run;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`run ${runId} never reached ${states.join('|')}`);
};

describe.runIf(reachable)('oz-agent-sdk on PostgreSQL: the run calls', () => {
  it('lists the skills, runs one, follows up on the finished run, and cancels an active one', async () => {
    const { agents } = await client.agent.list();
    expect(agents.map((a) => a.name)).toEqual(['deploy']);
    const { run_id } = await client.agent.run({ skill: 'acme/tools:deploy', prompt: 'ship it' });
    const done = await waitFor(run_id, ['SUCCEEDED']);
    expect(done).toMatchObject({ run_id, agent_skill: { name: 'deploy' }, started_at: expect.any(String) });
    const followed = await client.post<{ run_id: string; state: string }>(`/agent/runs/${run_id}/followups`, {
      body: { message: 'and the docs' },
    });
    expect(followed).toEqual({ run_id, state: 'QUEUED' });
    await waitFor(run_id, ['SUCCEEDED']);
    // Cancelled long before its 1.5 s demo run could end, whatever state it reached by then; cancelled twice, a 400.
    const other = await client.agent.run({ prompt: 'cancel me' });
    expect(await client.agent.runs.cancel(other.run_id)).toBe(other.run_id);
    expect((await client.agent.runs.retrieve(other.run_id)).state).toBe('CANCELLED');
    await expect(client.agent.runs.cancel(other.run_id)).rejects.toBeInstanceOf(BadRequestError);
  });
});
