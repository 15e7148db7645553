import OzAPI, { BadRequestError } from 'oz-agent-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from './support/database.js';
import { type ServerProcess, useProcesses } from './support/processes.js';
import { sleep, waitUntil } from './support/wait.js';

// Two reference server processes (`npm start`) on one database serve one API: whatever is done
// through one is seen through the other, and either one's worker may run any run.
// Skipped on PGlite (one in-process connection; no server for child processes).
const db = await openTestDatabase('two_servers');
afterAll(() => db.close());
if (!db.multiConnection) console.warn('[two-servers.test] skipped: needs a PostgreSQL server (child processes share it)');

/** Long enough that a run is still active while the test looks at it and cancels it. */
const DEMO_DURATION_MS = 2000;

describe.skipIf(!db.multiConnection)('two reference servers on one database', () => {
  const procs = useProcesses();
  let a: OzAPI;
  let b: OzAPI;
  let servers: ServerProcess[];

  beforeAll(async () => {
    const apiKey = `ar_two-servers-${Math.random().toString(36).slice(2)}`;
    servers = await Promise.all(
      ['server-a', 'server-b'].map((name) =>
        procs.server({
          name,
          databaseUrl: db.url as string,
          schema: db.schema,
          apiKey,
          demoDurationMs: DEMO_DURATION_MS,
          pollIntervalMs: 50,
        }),
      ),
    );
    const client = (server: ServerProcess) => new OzAPI({ apiKey, baseURL: `${server.url}/api/v1`, maxRetries: 0 });
    [a, b] = servers.map(client) as [OzAPI, OzAPI];
  }, 90_000);

  const waitForState = (client: OzAPI, runId: string, states: string[], timeoutMs = 15_000) =>
    waitUntil(
      () => client.agent.runs.retrieve(runId),
      (run) => states.includes(run.state),
      `run ${runId} to reach ${states.join('|')}`,
      timeoutMs,
    );

  it('a schedule created through A is paused through B, resumed through A and deleted through B (docs/schedules.md)', async () => {
    const created = await a.agent.schedules.create({ cron_schedule: '0 9 * * *', name: `two-${Date.now()}`, prompt: 'every morning' });
    expect(await b.agent.schedules.retrieve(created.id)).toEqual(created);
    expect(await b.agent.schedules.pause(created.id)).toMatchObject({ enabled: false, history: { next_run: null } });
    expect(await a.agent.schedules.resume(created.id)).toMatchObject({ enabled: true, history: { next_run: created.history?.next_run } });
    expect(
      await a.agent.schedules.update(created.id, { cron_schedule: '30 9 * * *', enabled: true, name: created.name, prompt: 'later' }),
    ).toMatchObject({
      cron_schedule: '30 9 * * *',
    });
    expect((await b.agent.schedules.list()).schedules.map((s) => s.id)).toContain(created.id);
    expect(await b.agent.schedules.delete(created.id)).toEqual({ success: true });
    await expect(a.agent.schedules.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
  });

  it('a run created through A is listed and retrieved through B, cancelled through B, and seen cancelled through A', async () => {
    const title = `cancel-${Date.now()}`;
    const { run_id } = await a.agent.run({ prompt: 'two servers, one run', title });

    const listed = await b.agent.runs.list({ q: title });
    expect(listed.runs.map((r) => r.run_id)).toEqual([run_id]);
    const viaB = await b.agent.runs.retrieve(run_id);
    const viaA = await a.agent.runs.retrieve(run_id);
    expect(viaB).toMatchObject({
      run_id,
      prompt: 'two servers, one run',
      created_at: viaA.created_at,
      conversation_id: viaA.conversation_id,
    });

    expect(await b.agent.runs.cancel(run_id)).toBe(run_id);
    const cancelled = await a.agent.runs.retrieve(run_id);
    expect(cancelled.state).toBe('CANCELLED');
    expect(cancelled.status_message?.message).toMatch(/^Cancelled by /);

    // Whichever process was executing it learns of the cancel only through the database; once
    // its execution would have ended, the run must still be CANCELLED (not SUCCEEDED).
    await sleep(DEMO_DURATION_MS + 500);
    expect((await a.agent.runs.retrieve(run_id)).state).toBe('CANCELLED');
    expect((await b.agent.runs.retrieve(run_id)).state).toBe('CANCELLED');
    await expect(a.agent.runs.cancel(run_id)).rejects.toBeInstanceOf(BadRequestError);
  }, 20_000);

  it('a run finished by a worker is followed up through B, re-queued, and finishes again', async () => {
    // The demo agent fails when the latest instruction says "fail": the prompt does, the
    // follow-up does not, so a SUCCEEDED run proves the follow-up reached the second execution.
    const { run_id } = await a.agent.run({ prompt: 'please fail this one' });
    const failed = await waitForState(b, run_id, ['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED']);
    expect(failed.state).toBe('FAILED');

    const followup = await b.post<{ run_id: string; state: string }>(`/agent/runs/${run_id}/followups`, {
      body: { message: 'now try again and succeed' },
    });
    expect(followup).toEqual({ run_id, state: 'QUEUED' });

    const done = await waitForState(a, run_id, ['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED']);
    expect(done).toMatchObject({ run_id, state: 'SUCCEEDED', status_message: { message: 'Done' } });
    expect(Date.parse(done.updated_at)).toBeGreaterThan(Date.parse(failed.updated_at));
    expect(await b.agent.runs.retrieve(run_id)).toEqual(done);

    // Both servers list the same runs.
    const ids = async (client: OzAPI) => (await client.agent.runs.list({ limit: 100 })).runs.map((r) => r.run_id);
    expect(await ids(b)).toEqual(await ids(a));
  }, 30_000);
});
