import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeEach } from 'vitest';

/**
 * Child processes for multi-process tests: reference servers (`packages/server/src/main.ts`) and
 * bare workers (`worker-process.ts`), each on a database URL, on 127.0.0.1 only.
 *
 * Children run as `node --conditions=agentrun-source --import tsx <script>` from the repo root
 * (the condition resolves @agentrun/* to their sources, docs/development.md; tsx is the loader
 * behind `node_modules/.bin/tsx`; loading it into one node process, rather than through the tsx
 * CLI, which runs the script in a grandchild, means the pid we hold is the process we mean to kill).
 * Every child is stopped by its test group's hooks, killed by an exit hook if the test process
 * ends first, and stops itself when the test process dies (parent-watchdog.ts).
 */

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const SERVER_MAIN = fileURLToPath(new URL('../../../server/src/main.ts', import.meta.url));
const WORKER_SCRIPT = fileURLToPath(new URL('./worker-process.ts', import.meta.url));
const WATCHDOG = new URL('./parent-watchdog.ts', import.meta.url).href;

/**
 * Default bounds: a tsx start takes a few seconds on a busy 2-core machine, longer while other test
 * files start processes of their own at the same moment (vitest.config.ts runs several files at a
 * time); a stop, under one.
 */
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 5_000;
const KEPT_LINES = 400;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

// Children still running, for the exit hook: the last resort when no afterEach/afterAll ran.
const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function track(child: ChildProcess): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const c of live) c.kill('SIGKILL');
    });
  }
  live.add(child);
  child.once('exit', () => live.delete(child));
}

/** One child process: its output kept for failure messages, a bounded stop. */
export class ManagedProcess {
  readonly exited: Promise<Exit>;
  private exitInfo: Exit | undefined;
  private readonly lines: string[] = [];
  private readonly lineWatchers = new Set<(line: string) => void>();

  constructor(
    readonly name: string,
    private readonly child: ChildProcess,
  ) {
    track(child);
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
      });
    });
    child.once('error', (error) => {
      this.keep('harness', String(error));
      // A process that never started emits no 'exit'.
      if (child.pid === undefined) {
        this.exitInfo = { code: null, signal: null };
        child.emit('exit', null, null);
      }
    });
    for (const stream of ['stdout', 'stderr'] as const) {
      let partial = '';
      child[stream]?.setEncoding('utf8');
      child[stream]?.on('data', (chunk: string) => {
        const parts = (partial + chunk).split('\n');
        partial = parts.pop() ?? '';
        for (const line of parts) this.keep(stream, line);
      });
      child[stream]?.on('end', () => partial && this.keep(stream, partial));
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** How it exited, once it has. */
  get exit(): Exit | undefined {
    return this.exitInfo;
  }

  /** What it wrote (stdout and stderr, the latest lines), for failure messages. */
  output(): string {
    const status = this.exitInfo ? `exited code=${this.exitInfo.code} signal=${this.exitInfo.signal}` : 'running';
    return [`── ${this.name} (pid ${this.pid}, ${status})`, ...this.lines].join('\n');
  }

  /** Write to its stdin (e.g. `go\n` to a worker started with `waitForGo`). */
  send(text: string): void {
    this.child.stdin?.write(text);
  }

  /** Resolves with the first stdout line matching `pattern`; rejects if it exits or times out first. */
  waitForLine(pattern: RegExp, timeoutMs = READY_TIMEOUT_MS): Promise<RegExpMatchArray> {
    const seen = this.lines
      .filter((l) => l.startsWith('[stdout] '))
      .map((l) => l.slice('[stdout] '.length).match(pattern))
      .find(Boolean);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const done = (error?: Error, match?: RegExpMatchArray) => {
        clearTimeout(timer);
        this.lineWatchers.delete(watch);
        if (error) reject(error);
        else resolve(match as RegExpMatchArray);
      };
      const watch = (line: string) => {
        const match = line.match(pattern);
        if (match) done(undefined, match);
      };
      const timer = setTimeout(
        () => done(new Error(`${this.name} printed no line matching ${pattern} within ${timeoutMs} ms\n${this.output()}`)),
        timeoutMs,
      );
      this.lineWatchers.add(watch);
      void this.exited.then(() => done(new Error(`${this.name} exited before printing ${pattern}\n${this.output()}`)));
    });
  }

  /** SIGTERM, then SIGKILL if it has not exited within `timeoutMs`. Resolves with how it exited. */
  async stop(timeoutMs = STOP_TIMEOUT_MS): Promise<Exit> {
    if (this.exitInfo) return this.exitInfo;
    this.child.kill('SIGTERM');
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = await Promise.race([
      this.exited.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      this.keep('harness', `did not stop within ${timeoutMs} ms of SIGTERM; killed`);
      this.child.kill('SIGKILL');
    }
    return this.exited;
  }

  private keep(stream: string, line: string): void {
    this.lines.push(`[${stream}] ${line}`);
    if (this.lines.length > KEPT_LINES) this.lines.splice(0, this.lines.length - KEPT_LINES);
    if (stream === 'stdout') for (const watch of [...this.lineWatchers]) watch(line);
    if (process.env.AGENTRUN_TEST_CHILD_LOGS === '1') process.stderr.write(`[${this.name}] ${line}\n`);
  }
}

/** Start `script` under tsx with `env` added to ours; not yet known to be ready. */
function spawnTsx(name: string, script: string, env: Record<string, string>): ManagedProcess {
  const child = spawn(process.execPath, ['--conditions=agentrun-source', '--import', 'tsx', '--import', WATCHDOG, script], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    // stdin is the watchdog's lifeline (and the worker's `go`); never inherit the test's stdio.
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return new ManagedProcess(name, child);
}

export interface SpawnHooks {
  /** Called as soon as the process exists, before it is ready: to stop it even if it never is. */
  onSpawn?: (proc: ManagedProcess) => void;
}

export interface ServerProcessOptions {
  databaseUrl: string;
  /** AGENTRUN_DB_SCHEMA: the store's schema in that database (a test file's own: `database.schema`). */
  schema: string;
  /** The bootstrap key (AGENTRUN_API_KEY), at least 16 characters; share it to share a principal. */
  apiKey: string;
  name?: string;
  /** AGENTRUN_DEMO_DURATION_MS: how long each demo run works. */
  demoDurationMs?: number;
  /** AGENTRUN_POLL_INTERVAL_MS: how soon the server's worker sees runs other processes created. */
  pollIntervalMs?: number;
  env?: Record<string, string>;
}

export interface ServerProcess extends ManagedProcess {
  /** e.g. `http://127.0.0.1:41234`; the run API is under `/api/v1`. */
  readonly url: string;
  readonly apiKey: string;
}

/** A reference server (`npm start`) on a free port of 127.0.0.1, resolved once it listens. */
export async function startServerProcess(options: ServerProcessOptions, hooks: SpawnHooks = {}): Promise<ServerProcess> {
  const name = options.name ?? 'server';
  const proc = spawnTsx(name, SERVER_MAIN, {
    DATABASE_URL: options.databaseUrl,
    AGENTRUN_DB_SCHEMA: options.schema,
    PORT: '0',
    HOST: '127.0.0.1',
    AGENTRUN_API_KEY: options.apiKey,
    ...(options.demoDurationMs !== undefined ? { AGENTRUN_DEMO_DURATION_MS: String(options.demoDurationMs) } : {}),
    ...(options.pollIntervalMs !== undefined ? { AGENTRUN_POLL_INTERVAL_MS: String(options.pollIntervalMs) } : {}),
    ...options.env,
  });
  hooks.onSpawn?.(proc);
  try {
    const [, url] = await proc.waitForLine(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    return Object.assign(proc, { url: url as string, apiKey: options.apiKey });
  } catch (error) {
    await proc.stop();
    throw error;
  }
}

export interface WorkerProcessOptions {
  databaseUrl: string;
  /** AGENTRUN_DB_SCHEMA: the store's schema in that database. */
  schema: string;
  workerId: string;
  concurrency?: number;
  pollIntervalMs?: number;
  heartbeatMs?: number;
  /** Connections of its pool. Default 4. */
  poolSize?: number;
  /** How long each execution works before it succeeds. Default 1 ms. */
  executeMs?: number;
  /** Hold off claiming until `go()`: lets several processes start competing at once. */
  waitForGo?: boolean;
  env?: Record<string, string>;
}

export interface WorkerProcess extends ManagedProcess {
  readonly workerId: string;
  /** Start claiming (for a worker started with `waitForGo`). */
  go(): void;
}

/** A bare worker process (worker-process.ts), resolved once it is ready. */
async function startWorkerProcess(options: WorkerProcessOptions, hooks: SpawnHooks = {}): Promise<WorkerProcess> {
  const opt = (value: number | undefined) => (value === undefined ? undefined : String(value));
  const env: Record<string, string | undefined> = {
    DATABASE_URL: options.databaseUrl,
    AGENTRUN_DB_SCHEMA: options.schema,
    AGENTRUN_WORKER_ID: options.workerId,
    AGENTRUN_WORKER_CONCURRENCY: opt(options.concurrency),
    AGENTRUN_POLL_INTERVAL_MS: opt(options.pollIntervalMs),
    AGENTRUN_HEARTBEAT_MS: opt(options.heartbeatMs),
    AGENTRUN_POOL_SIZE: opt(options.poolSize),
    AGENTRUN_TEST_EXECUTE_MS: opt(options.executeMs),
    AGENTRUN_WAIT_FOR_GO: options.waitForGo ? '1' : undefined,
  };
  const defined = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
  const proc = spawnTsx(options.workerId, WORKER_SCRIPT, { ...defined, ...options.env });
  hooks.onSpawn?.(proc);
  try {
    await proc.waitForLine(/^worker ready /);
    return Object.assign(proc, { workerId: options.workerId, go: () => proc.send('go\n') });
  } catch (error) {
    await proc.stop();
    throw error;
  }
}

/**
 * The processes of one test file. Those started inside a test are stopped after it, pass or fail;
 * those started in `beforeAll` live until `afterAll`. `useProcesses()` installs the hooks.
 */
export class ProcessGroup {
  private readonly all: ManagedProcess[] = [];
  private perTest: ManagedProcess[] | undefined;
  private readonly hooks: SpawnHooks = {
    onSpawn: (proc) => {
      this.all.push(proc);
      this.perTest?.push(proc);
    },
  };

  server(options: ServerProcessOptions): Promise<ServerProcess> {
    return startServerProcess(options, this.hooks);
  }

  worker(options: WorkerProcessOptions): Promise<WorkerProcess> {
    return startWorkerProcess(options, this.hooks);
  }

  /** Processes started from now on belong to the test; returns their (live) list. */
  beginTest(): readonly ManagedProcess[] {
    this.perTest = [];
    return this.perTest;
  }

  /** Stop the processes the current test started (from afterEach, or earlier by the test itself). */
  async stopTestProcesses(timeoutMs = STOP_TIMEOUT_MS): Promise<void> {
    await Promise.all((this.perTest ?? []).map((p) => p.stop(timeoutMs)));
  }

  /** Stop every process of the file, in parallel (bounded: SIGKILL after `timeoutMs`). */
  async stopAll(timeoutMs = STOP_TIMEOUT_MS): Promise<void> {
    await Promise.all(this.all.map((p) => p.stop(timeoutMs)));
  }

  /** Output of the given processes and of every one still running, for a failure message. */
  report(also: readonly ManagedProcess[] = []): string {
    const shown = new Set([...also, ...this.all.filter((p) => p.exit === undefined)]);
    return [...shown].map((p) => p.output()).join('\n');
  }
}

/** A process group wired to vitest: per-test stop, output of the failed test's processes, stop at the end. */
export function useProcesses(): ProcessGroup {
  const group = new ProcessGroup();
  beforeEach(({ onTestFailed }) => {
    const mine = group.beginTest();
    onTestFailed(() => {
      const report = group.report(mine);
      if (report) console.error(`child processes of the failed test:\n${report}`);
    });
  });
  afterEach(() => group.stopTestProcesses(), STOP_TIMEOUT_MS * 2);
  afterAll(() => group.stopAll(), STOP_TIMEOUT_MS * 2);
  return group;
}
