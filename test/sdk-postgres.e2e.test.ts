import { fakeSkillRepositories } from '@agentrun/core/testing';
import type { ReferenceServer } from '@agentrun/server';
import OzAPI, { BadRequestError } from 'oz-agent-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PostgresReferenceServer, postgresReachable, startPostgresReferenceServer } from './support/postgres-server.js';

// The published TypeScript client's run calls on Postgres, the ones no other Postgres test makes
// (test/sdk.e2e.test.ts makes every call on the memory store; test/schedules-postgres.e2e.test.ts
// and test/artifacts.e2e.test.ts the schedule and artifact calls on Postgres): agent.list, run,
// runs.retrieve, runs.cancel and a follow-up. A schema of this file's own, dropped at the end
// (test/support/postgres-server.ts).
let pgServer: PostgresReferenceServer;
let server: ReferenceServer;
let client: OzAPI;
/** Outside CI, a machine without the server skips this file (CI=true fails it). */
const reachable = await postgresReachable('sdk-postgres.e2e');
const skills = fakeSkillRepositories(['acme/tools:deploy']);
beforeAll(async () => {
  if (!reachable) return;
  pgServer = await startPostgresReferenceServer('sdk_pg', { demoDurationMs: 1500, pollIntervalMs: 50, repositories: skills.reader });
  server = pgServer.server;
  await skills.register(server.store, server.principal.team_uid);
  client = new OzAPI({ apiKey: server.apiKey, baseURL: `${server.url}/api/v1`, maxRetries: 0 });
});
afterAll(async () => {
  if (!reachable) return;
  await pgServer?.close();
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
