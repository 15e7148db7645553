import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAgentRun } from '@agentrun/core';
import OzAPI from 'oz-agent-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { openTestDatabase } from './support/database.js';
import { type ServerProcess, useProcesses } from './support/processes.js';
import { waitUntil } from './support/wait.js';

// Two reference servers on one database, both running real agents through the process executor
// (AGENTRUN_EXECUTOR=process; docs/executors.md, "The process executor"): a run created through
// one is run by a worker of either, and a cancel sent through the server that is NOT running the
// agent reaches it through the database's notifications and ends its whole process group, while
// the run's transcript streams (Server-Sent Events) from the server that is not running it.
// Skipped on PGlite (one in-process connection; no server for child processes). Linux only in
// practice: the agent's processes are found in /proc by the run id in their environment.
const db = await openTestDatabase('two_servers_process');
afterAll(() => db.close());
if (!db.multiConnection) console.warn('[two-servers-process.test] skipped: needs a PostgreSQL server (child processes share it)');

const EXAMPLE_AGENT = fileURLToPath(new URL('../../executor-process/examples/agent.mjs', import.meta.url));

/** A process of the agent's: one whose environment carries the run's AGENTRUN_RUN_ID. */
interface AgentProcess {
  pid: number;
  ppid: number;
  command: string;
}

/** The live (not zombie) processes whose environment says they belong to `runId`. */
function agentProcesses(runId: string): AgentProcess[] {
  const found: AgentProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0');
      if (!environ.includes(`AGENTRUN_RUN_ID=${runId}`)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const [state, ppid] = stat.slice(close + 2).split(' ');
      if (state === 'Z') continue;
      found.push({ pid: Number(entry), ppid: Number(ppid), command: stat.slice(stat.indexOf('(') + 1, close) });
    } catch {
      // Gone while we looked, or not ours to read.
    }
  }
  return found;
}

describe.skipIf(!db.multiConnection)('two reference servers running agents with the process executor', () => {
  const procs = useProcesses();
  let servers: ServerProcess[];
  let clients: OzAPI[];
  let workspaceRoot: string;

  beforeAll(async () => {
    workspaceRoot = await mkdtemp(join(tmpdir(), 'agentrun-two-servers-'));
    const apiKey = `ar_two-servers-process-${Math.random().toString(36).slice(2)}`;
    servers = await Promise.all(
      ['server-a', 'server-b'].map((name) =>
        procs.server({
          name,
          databaseUrl: db.url as string,
          schema: db.schema,
          apiKey,
          pollIntervalMs: 50,
          env: {
            AGENTRUN_EXECUTOR: 'process',
            AGENTRUN_AGENT_COMMAND: `"${process.execPath}" "${EXAMPLE_AGENT}"`,
            AGENTRUN_WORKSPACE_ROOT: workspaceRoot,
            AGENTRUN_AGENT_KILL_GRACE_MS: '2000',
          },
        }),
      ),
    );
    clients = servers.map((server) => new OzAPI({ apiKey, baseURL: `${server.url}/api/v1`, maxRetries: 0 }));
  }, 90_000);
  afterAll(() => rm(workspaceRoot, { recursive: true, force: true }));

  it('a run created through A is run by a worker of either; a cancel through the other server ends the agent', async () => {
    const [a] = clients as [OzAPI, OzAPI];
    const { run_id } = await a.agent.run({ prompt: 'two servers, a real agent: sleep 60' });

    // The agent runs (the example agent waits in a `sleep` child of its group), under one server.
    const running = await waitUntil(
      () => agentProcesses(run_id),
      (ps) => ps.some((p) => p.command === 'sleep') && ps.some((p) => servers.some((s) => s.pid === p.ppid)),
      `the agent of ${run_id} and its sleep child to run`,
      30_000,
    );
    const runner = servers.findIndex((s) => running.some((p) => p.ppid === s.pid));
    expect(runner).toBeGreaterThanOrEqual(0);
    expect((await a.agent.runs.retrieve(run_id)).state).toBe('INPROGRESS');
    // The agent printed its status line before it started `sleep`, but the runner's worker writes
    // it when it reads it: wait until it is stored, or the cancel below can come first and the
    // line is rightly never written (a run's lines are written only while its worker holds it).
    const first = servers[0] as ServerProcess;
    await waitUntil(
      async () => {
        const page = await fetch(`${first.url}/api/v1/agent/runs/${run_id}/events?limit=1000`, {
          headers: { authorization: `Bearer ${first.apiKey}` },
        });
        return ((await page.json()) as { events: { type: string; data: { message?: string } }[] }).events;
      },
      (events) => events.some((e) => e.type === 'status' && /^Read the prompt/.test(e.data.message ?? '')),
      `the agent's first status line of ${run_id} to be stored`,
      10_000,
    );

    // Follow its transcript live from the server that is not running it (docs/run-api.md, "Run
    // events"): the stream sees what the runner writes, and ends once the run is terminal.
    const otherServer = servers[1 - runner] as ServerProcess;
    const stream = await fetch(`${otherServer.url}/api/v1/agent/runs/${run_id}/events`, {
      headers: { authorization: `Bearer ${otherServer.apiKey}`, accept: 'text/event-stream' },
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const streamed = stream.text();

    // Cancel through the server whose worker is not running it.
    const other = clients[1 - runner] as OzAPI;
    expect(await other.agent.runs.cancel(run_id)).toBe(run_id);
    for (const client of clients) expect((await client.agent.runs.retrieve(run_id)).state).toBe('CANCELLED');

    // The agent's whole process group is gone (the node agent and its sleep child): the runner's
    // worker heard of the cancel through the database (a notification, else its heartbeat).
    await waitUntil(
      () => agentProcesses(run_id),
      (ps) => ps.length === 0,
      `the agent processes of ${run_id} to end`,
      10_000,
    );
    for (const client of clients) expect((await client.agent.runs.retrieve(run_id)).state).toBe('CANCELLED');

    const events = (await streamed)
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice('data: '.length)) as { id: number; type: string; data: Record<string, unknown> });
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    // The agent's own status line, written by the runner's worker, reached the other server's stream.
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'status', data: expect.objectContaining({ message: expect.stringMatching(/^Read the prompt/) }) }),
    );
    expect(events.at(-1)).toMatchObject({ type: 'state', data: { from: 'INPROGRESS', to: 'CANCELLED' } });
  }, 60_000);

  // Last: it kills one of the two servers.
  it('a server killed with SIGKILL leaves no agent behind, and its run is recovered by the lease and run again', async () => {
    const [a] = clients as [OzAPI, OzAPI];
    const { run_id } = await a.agent.run({ prompt: 'outlive my worker: sleep 60' });
    const running = await waitUntil(
      () => agentProcesses(run_id),
      (ps) => ps.some((p) => p.command === 'sleep') && ps.some((p) => servers.some((s) => s.pid === p.ppid)),
      `the agent of ${run_id} to run`,
      30_000,
    );
    const runner = servers.findIndex((s) => running.some((p) => p.ppid === s.pid));
    const victim = servers[runner] as ServerProcess;
    const survivor = servers[1 - runner] as ServerProcess;
    const survivorClient = clients[1 - runner] as OzAPI;

    // The worker dies outright: nothing of it runs to hand the run back or stop its agent.
    process.kill(victim.pid as number, 'SIGKILL');
    expect(await victim.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // Its agent's watchdog sees the worker's pipe close and ends the agent's whole group.
    await waitUntil(
      () => agentProcesses(run_id),
      (ps) => ps.every((p) => !running.some((r) => r.pid === p.pid)),
      `the orphaned agent of ${run_id} to end`,
      10_000,
    );
    expect((await survivorClient.agent.runs.retrieve(run_id)).state).toBe('INPROGRESS');

    // The lease: a sweep judged from past its expiry (30 s by default) puts the run back in the
    // queue, and the surviving server's worker claims it and starts a new agent.
    const pool = db.newPool?.(2);
    const rescuer = createAgentRun({
      store: createPostgresStore({ pool: pool as NonNullable<typeof pool>, schema: db.schema, listen: false }),
      clock: { now: () => Date.now() + 120_000 },
    }).worker({ executor: { execute: () => Promise.reject(new Error('the rescuer only sweeps')) } });
    try {
      expect(await rescuer.recoverExpiredLeases()).toBeGreaterThanOrEqual(1);
    } finally {
      await pool?.end();
    }
    const rerun = await waitUntil(
      () => agentProcesses(run_id),
      (ps) => ps.some((p) => p.command === 'sleep') && ps.some((p) => p.ppid === survivor.pid),
      `the survivor to run ${run_id} again`,
      30_000,
    );
    expect(rerun.every((p) => !running.some((r) => r.pid === p.pid))).toBe(true);
    expect(await survivorClient.agent.runs.cancel(run_id)).toBe(run_id);
    await waitUntil(
      () => agentProcesses(run_id),
      (ps) => ps.length === 0,
      `the second agent of ${run_id} to end`,
      10_000,
    );
  }, 90_000);
});
