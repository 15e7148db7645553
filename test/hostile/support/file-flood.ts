import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * A hostile agent's flood of small files, and what it costs the server (docs/executors.md, "Disk
 * limits"): the reference server (packages/server/src/main.ts) in a child process
 * (memory store, or PostgreSQL) runs one agent that makes `files` empty files in its workspace, then waits `holdS` seconds and
 * exits. Measured on the server process alone: its CPU (utime + stime) from before the run to
 * `holdS` after it, and that less what the same probes cost it idle for as long (measured first,
 * for `idleS`); its peak resident memory above its own before the run (VmHWM − VmRSS); and
 * /healthz's latency, asked every 50 ms throughout. The cap, when there is one, is 2 GiB: empty
 * files stay far below it, and the filesystem's 524,288 inodes hold 400,000 of them.
 * test/hostile/disk-limit.test.ts runs it; so does `npm run bench -- hostile` (bench/hostile.ts).
 */

/** No cap (the reference: what the files cost the server without any check), the measured cap, the filesystem per run. */
export type FloodMode = 'none' | 'measured' | 'filesystem';

export interface FloodRound {
  /** The server's CPU over the run, and that less what the same probes cost it idle for as long. */
  cpuS: number;
  cpuAboveIdleS: number;
  memMb: number;
  p99Ms: number;
  maxMs: number;
  state: string;
  errorCode: string | undefined;
  seconds: number;
}

/**
 * How a round is paced. The bench's: the agent holds its files `holdS` and the server is watched
 * `holdS` after the run (a stall may come after the files), and `idleS` of probes first give the
 * idle reference its CPU figure is taken above. Its memory needs none of it: the run ends only
 * once the executor measured the files at the agent's exit and removed them (process-executor.ts),
 * and VmHWM keeps the peak of both.
 */
export interface FloodPace {
  holdS: number;
  /** 0: no idle reference (`cpuAboveIdleS` is then the whole CPU figure). */
  idleS: number;
  /** How often the run's state is asked. */
  statePollMs: number;
}

const BENCH_PACE: FloodPace = { holdS: 3, idleS: 3, statePollMs: 1000 };

const CAP = 2 * 2 ** 30;
/** /healthz is asked this often. */
const PROBE_MS = 50;
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SERVER_MAIN = join(REPO_ROOT, 'packages/server/src/main.ts');
const TSX = pathToFileURL(join(REPO_ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const API_KEY = 'hostile-flood-api-key-0123456789';
const TICKS_PER_S = 100;

/**
 * 400 directories of files / 400 empty files each: awk names them all and xargs hands them to
 * `touch` in as few calls as the argument limit allows (a few processes, not a few per directory).
 */
const agent = (files: number, holdS: number) =>
  `seq 400 | xargs mkdir && awk 'BEGIN { for (d = 1; d <= 400; d++) for (i = 1; i <= ${Math.ceil(files / 400)}; i++) print d "/" i }' | xargs touch || exit 3; sleep ${holdS}`;

export async function fileFlood(
  mode: FloodMode,
  files: number,
  /** PostgreSQL: the test database's URL and schema; memory: undefined. */
  database?: { url: string; schema: string },
  pace: FloodPace = BENCH_PACE,
): Promise<FloodRound> {
  const workspaces = await mkdtemp(join(tmpdir(), 'agentrun-hostile-flood-'));
  const server = spawn(process.execPath, ['--conditions=agentrun-source', '--import', TSX, SERVER_MAIN], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: workspaces,
      PORT: '0',
      HOST: '127.0.0.1',
      AGENTRUN_API_KEY: API_KEY,
      AGENTRUN_POLL_INTERVAL_MS: '100',
      AGENTRUN_EXECUTOR: 'process',
      AGENTRUN_AGENT_COMMAND: agent(files, pace.holdS),
      AGENTRUN_WORKSPACE_ROOT: workspaces,
      ...(mode === 'none' ? {} : { AGENTRUN_AGENT_MAX_WORKSPACE_BYTES: String(CAP), AGENTRUN_AGENT_DISK_LIMIT: mode }),
      ...(database ? { DATABASE_URL: database.url, AGENTRUN_DB_SCHEMA: database.schema } : { AGENTRUN_STORE: 'memory' }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const url = await listening(server);
    const pid = server.pid as number;
    await new Promise((r) => setTimeout(r, 1000)); // settled after its start
    // The server's own cost of being watched: `idleS` of the same /healthz probes, no run.
    let idleRate = 0;
    if (pace.idleS > 0) {
      const idleFrom = await usage(pid);
      const idleStarted = performance.now();
      await probe(url, () => performance.now() - idleStarted >= pace.idleS * 1000);
      idleRate = ((await usage(pid)).ticks - idleFrom.ticks) / TICKS_PER_S / ((performance.now() - idleStarted) / 1000);
    }

    const before = await usage(pid);
    const started = performance.now();
    const run = await api(url, 'POST', '/agent/run', { prompt: 'files' });
    let final: { state: string; status_message?: { error_code?: string } } | undefined;
    let endedAt: number | undefined;
    let asked = 0;
    // Until `holdS` after the run ended: a stall, if any, may come after the files too.
    const latencies = await probe(url, async () => {
      if (performance.now() - started > 600_000) throw new Error('the run took over 10 minutes');
      if (endedAt !== undefined) return performance.now() - endedAt >= pace.holdS * 1000;
      if (performance.now() - asked < pace.statePollMs) return false;
      asked = performance.now();
      const current = await api(url, 'GET', `/agent/runs/${run.run_id}`);
      if (['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'].includes(current.state)) {
        final = current;
        endedAt = performance.now();
      }
      return false;
    });
    const after = await usage(pid);
    const cpuS = (after.ticks - before.ticks) / TICKS_PER_S;
    latencies.sort((a, b) => a - b);
    return {
      cpuS,
      cpuAboveIdleS: cpuS - idleRate * ((performance.now() - started) / 1000),
      memMb: (after.hwmKb - before.rssKb) / 1024,
      p99Ms: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
      maxMs: latencies.at(-1) ?? 0,
      state: final?.state ?? 'unknown',
      errorCode: final?.status_message?.error_code,
      seconds: ((endedAt ?? started) - started) / 1000,
    };
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    await rm(workspaces, { recursive: true, force: true });
  }
}

/** /healthz every PROBE_MS until `done` says so; the latencies, in ms. */
async function probe(url: string, done: () => boolean | Promise<boolean>): Promise<number[]> {
  const latencies: number[] = [];
  while (!(await done())) {
    const t0 = performance.now();
    await fetch(`${url}/healthz`).then((r) => r.arrayBuffer());
    latencies.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, PROBE_MS));
  }
  return latencies;
}

/** The server's CPU in clock ticks (utime + stime), its resident memory now and at its peak. */
async function usage(pid: number): Promise<{ ticks: number; rssKb: number; hwmKb: number }> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { ticks: Number(fields[11]) + Number(fields[12]), rssKb: kb('VmRSS'), hwmKb: kb('VmHWM') };
}

function listening(server: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${out.slice(-2000)}`)), 60_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    };
    server.stdout?.on('data', read);
    server.stderr?.on('data', read);
    server.once('exit', (code) => reject(new Error(`the server exited ${code}: ${out.slice(-2000)}`)));
  });
}

async function api(url: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}
