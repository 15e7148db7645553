import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPostgresStore } from '@agentrun/store-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchOutput } from './support/child-output.js';
import { postgresReachable } from './support/postgres-server.js';

// Worker hosts across processes (docs/operations.md, "Worker hosts"): two `npm start -- worker`
// processes, hosts `a` and `b`, and one API process (a worker of host `api` that takes no unrouted
// run) on one PostgreSQL schema. Each execution is a shell command of the process executor that
// appends its host and its run's prompt to a file: the side channel that counts executions.

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const MAIN = join(ROOT, 'packages/server/src/main.ts');
const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const API_KEY = 'ar_worker_hosts_e2e_key_000000000000';
const reachable = await postgresReachable('worker-hosts.e2e');

const dir = mkdtempSync(join(tmpdir(), 'agentrun-worker-hosts-'));
const log = join(dir, 'executions.log');
const release = join(dir, 'release');
const schema = `t_worker_hosts_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const children: ChildProcess[] = [];

/**
 * The agent: a prompt starting `hold` waits for the release file (a run a worker holds while the
 * test looks at the workers list); then it appends `<host> <prompt>` to the log.
 */
const agentCommand = (host: string) =>
  `p="$(cat "$AGENTRUN_PROMPT_FILE")"; case "$p" in hold*) while [ ! -e ${release} ]; do sleep 0.05; done;; esac; printf '%s %s\\n' ${host} "$p" >> ${log}`;

function startProcess(host: string, args: string[], extra: Record<string, string> = {}) {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL,
    AGENTRUN_DB_SCHEMA: schema,
    AGENTRUN_API_KEY: API_KEY,
    AGENTRUN_POLL_INTERVAL_MS: '100',
    AGENTRUN_EXECUTOR: 'process',
    AGENTRUN_HARNESSES: 'auto',
    AGENTRUN_AGENT_COMMAND: agentCommand(host),
    AGENTRUN_WORKSPACE_ROOT: join(dir, `workspaces-${host}`),
    AGENTRUN_WORKER_HOST: host,
    AGENTRUN_WORKER_CONCURRENCY: '6',
    ...extra,
  };
  const child = spawn(process.execPath, ['--conditions=agentrun-source', '--import', 'tsx', MAIN, ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  return { child, output: watchOutput(child) };
}

let api: string;
let workerB: ReturnType<typeof startProcess>;

const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
  const res = await fetch(`${api}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
};

interface WorkerItem {
  id: string;
  host: string;
  unrouted: boolean;
  runs: string[];
  runs_held: number;
  capacity: number;
}
const workers = async () => (await call<{ workers: WorkerItem[] }>('GET', '/workers')).workers;
const create = async (prompt: string, host?: string) =>
  (await call<{ run_id: string }>('POST', '/agent/runs', { prompt, ...(host !== undefined ? { config: { worker_host: host } } : {}) }))
    .run_id;
const getRun = (id: string) => call<{ state: string; status_message?: { message: string } }>('GET', `/agent/runs/${id}`);

/** Waits for a condition across processes: what the test awaits is another process's doing. */
async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The log's executions: prompt → the hosts that ran it, in order. */
const executions = () => {
  const byPrompt = new Map<string, string[]>();
  if (!existsSync(log)) return byPrompt;
  for (const line of readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
    const [host, ...prompt] = line.split(' ');
    const key = prompt.join(' ');
    byPrompt.set(key, [...(byPrompt.get(key) ?? []), host as string]);
  }
  return byPrompt;
};

beforeAll(async () => {
  if (!reachable) return;
  // Migrated once before the processes start, so none of them waits on another's migration.
  const store = createPostgresStore({ connectionString: DATABASE_URL, schema });
  await store.migrate();
  await store.close();
  const apiProcess = startProcess('api', [], { AGENTRUN_WORKER_UNROUTED: '0' });
  const a = startProcess('a', ['worker']);
  workerB = startProcess('b', ['worker']);
  [api] = (await apiProcess.output.next(/listening on (http:\/\/127\.0\.0\.1:\d+)/)) as [string];
  await Promise.all([a.output.next(/probes: +(\S+)\/healthz/), workerB.output.next(/probes: +(\S+)\/healthz/)]);
}, 90_000);

afterAll(async () => {
  for (const child of children) {
    try {
      if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // already gone
    }
  }
  if (reachable) {
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!reachable)('worker hosts across processes', { timeout: 180_000 }, () => {
  it('a worker process serves only the probes', async () => {
    const [probes] = (await workerB.output.next(/probes: +(\S+)\/healthz/)) as [string];
    expect((await fetch(`${probes}/healthz`)).status).toBe(200);
    const runs = await fetch(`${probes}/api/v1/agent/runs`, { headers: { authorization: `Bearer ${API_KEY}` } });
    expect(runs.status).toBe(404);
    expect(runs.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await fetch(`${probes}/dashboard`)).status).toBe(404);
  });

  it('routes runs to their host, unrouted ones to either; a run for a host without a worker waits, saying so', async () => {
    const listed = await until(workers, (w) => ['a', 'b'].every((h) => w.some((x) => x.host === h)), 'workers a and b');
    expect(listed.map((w) => [w.host, w.unrouted, w.capacity])).toEqual([
      ['a', true, 6],
      ['api', false, 6],
      ['b', true, 6],
    ]);
    const forA = await Promise.all([0, 1, 2].map((i) => create(`route a${i}`, 'a')));
    const anyHost = await Promise.all([0, 1, 2].map((i) => create(`route any${i}`)));
    const forC = await create('route c', 'c');
    for (const id of [...forA, ...anyHost])
      await until(
        () => getRun(id),
        (r) => r.state === 'SUCCEEDED',
        `run ${id}`,
      );
    const ran = executions();
    for (const i of [0, 1, 2]) {
      expect(ran.get(`route a${i}`)).toEqual(['a']);
      expect(['a', 'b']).toContain(ran.get(`route any${i}`)?.[0]);
      expect(ran.get(`route any${i}`)).toHaveLength(1);
    }
    expect(await getRun(forC)).toMatchObject({
      state: 'QUEUED',
      status_message: { message: "waiting for a worker on host 'c': none is live" },
    });
    expect(ran.has('route c')).toBe(false);
  });

  it('the workers list shows each host with the runs it holds', async () => {
    const heldA = await create('hold a', 'a');
    const heldB = await create('hold b', 'b');
    const listed = await until(
      workers,
      (w) => w.some((x) => x.host === 'a' && x.runs.includes(heldA)) && w.some((x) => x.host === 'b' && x.runs.includes(heldB)),
      'both held runs in the list',
    );
    expect(listed.find((w) => w.host === 'a')).toMatchObject({ runs: [heldA], runs_held: 1 });
    expect(listed.find((w) => w.host === 'b')).toMatchObject({ runs: [heldB], runs_held: 1 });
    writeFileSync(release, '');
    for (const id of [heldA, heldB])
      await until(
        () => getRun(id),
        (r) => r.state === 'SUCCEEDED',
        `run ${id}`,
      );
    expect([executions().get('hold a'), executions().get('hold b')]).toEqual([['a'], ['b']]);
  });

  it('200 runs over both hosts run each exactly once, each routed one on its host', async () => {
    const hostOf = (i: number) => (i % 3 === 0 ? 'a' : i % 3 === 1 ? 'b' : undefined);
    const ids = await Promise.all(Array.from({ length: 200 }, (_, i) => create(`many ${i}`, hostOf(i))));
    await until(
      () => Promise.all(ids.map(async (id) => (await getRun(id)).state)),
      (states) => states.every((s) => s === 'SUCCEEDED'),
      'all 200 runs to succeed',
      120_000,
    );
    const ran = executions();
    for (let i = 0; i < 200; i++) {
      const hosts = ran.get(`many ${i}`);
      expect(hosts, `run ${i}`).toHaveLength(1);
      const host = hostOf(i);
      if (host !== undefined) expect(hosts).toEqual([host]);
      else expect(['a', 'b']).toContain(hosts?.[0]);
    }
  });

  it('a worker stopped by SIGTERM leaves the list', async () => {
    workerB.child.kill('SIGTERM');
    await new Promise((resolve) => workerB.child.once('exit', resolve));
    const listed = await workers();
    expect(listed.map((w) => w.host)).toEqual(['a', 'api']);
  });
});
