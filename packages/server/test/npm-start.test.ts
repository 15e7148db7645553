import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../src/settings.js';

/**
 * `npm start` as an operator runs it (docs/server.md): its settings' help and refusals, and the
 * embedded store kept across a stop by SIGTERM and a start again on the same data directory. Few
 * processes on purpose: each start is seconds.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'agentrun-npm-start-'));
const started = new Set<ChildProcess>();

/** The test's environment without its own store and agentrun settings: the server's defaults apply. */
const cleanEnv = (extra: Record<string, string>) => {
  const env: Record<string, string> = { npm_config_update_notifier: 'false' };
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && name !== 'DATABASE_URL' && !name.startsWith('AGENTRUN_')) env[name] = value;
  }
  return { ...env, ...extra };
};

interface Started {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the first match of `pattern` in stdout and stderr, or rejects when the process ends first. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  exited: Promise<number | null>;
}

/** A process in a process group of its own (so that cleanup can end all of it), its output kept. */
function start(command: string, args: string[], env: Record<string, string>): Started {
  const child = spawn(command, args, { cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  started.add(child);
  let output = '';
  const watchers = new Set<() => void>();
  const take = (chunk: Buffer) => {
    output += chunk.toString();
    for (const watch of [...watchers]) watch();
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const look = () => {
          const match = pattern.exec(output);
          if (!match) return;
          watchers.delete(look);
          resolve(match);
        };
        watchers.add(look);
        look();
        void exited.then((code) => reject(new Error(`exited ${code} before printing ${pattern}:\n${output}`)));
      }),
  };
}

const npmStart = (env: Record<string, string>, args: string[] = []) =>
  start('npm', ['start', ...(args.length ? ['--', ...args] : [])], { PORT: '0', HOST: '127.0.0.1', ...env });

/** A server started by `npm start` on the test's data directory, once it has printed its banner. */
async function serve() {
  const proc = npmStart({
    AGENTRUN_DATA_DIR: dataDir,
    AGENTRUN_POLL_INTERVAL_MS: '50',
    AGENTRUN_DEMO_DURATION_MS: '200',
    AGENTRUN_SHUTDOWN_GRACE_MS: '2000',
  });
  const [, url] = await proc.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  await proc.waitFor(/ {2}try: /);
  return { ...proc, url: url as string, port: Number(new URL(url as string).port) };
}

afterAll(() => {
  for (const child of started) {
    try {
      if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

/** The pids left in a process group: none once every process of it has ended. */
const group = (pgid: number) => {
  try {
    return execFileSync('ps', ['-o', 'pid=', '-g', String(pgid)], { encoding: 'utf8' }).trim();
  } catch {
    return ''; // ps exits 1 when it lists nothing
  }
};

/** Whether a port of 127.0.0.1 can be listened on again. */
const portIsFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });

describe('npm start', { timeout: 240_000 }, () => {
  it('lists every setting for --help and exits 0; a wrong value exits 2 naming the variable', async () => {
    const help = npmStart({}, ['--help']);
    const wrong = npmStart({ PORT: 'abc' });
    expect(await help.exited).toBe(0);
    for (const name of Object.keys(SETTINGS)) expect(help.output()).toContain(`  ${name}=<`);
    expect(await wrong.exited).toBe(2);
    expect(wrong.output()).toContain('PORT must be a port number, got "abc"\n');
  });

  it('refuses a worker alone on a store no API process can share, naming DATABASE_URL (exit 2)', async () => {
    const worker = npmStart({ AGENTRUN_STORE: 'memory' }, ['worker']);
    expect(await worker.exited).toBe(2);
    expect(worker.output()).toContain('npm start -- worker needs the PostgreSQL store the API processes share: set DATABASE_URL\n');
  });

  it('keeps factories, secrets, webhooks, automations and runs on the embedded store across a SIGTERM and a start; one bootstrap key', async () => {
    const first = await serve();
    const key = (await first.waitFor(/API key: {2}(ar_\S+) \(the bootstrap key, shown this once/))[1] as string;
    const api = async <T>(base: string, method: string, path: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${base}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return (text ? JSON.parse(text) : undefined) as T;
    };
    expect(first.output()).toMatch(/secrets: {2}sealed with key \S+, made now and kept in /);
    expect(statSync(join(dataDir, 'secret-key')).mode & 0o777).toBe(0o600);

    const factory = (await api<{ uid: string }>(first.url, 'POST', '/factories', { name: 'Kept' })).uid;
    await api(first.url, 'PUT', '/team/secrets/deploy-token', { value: 'kept-secret-value' });
    const hook = await api<{ webhook: { uid: string }; secret: string }>(first.url, 'POST', `/factories/${factory}/webhooks`, {
      name: 'kept-hook',
      auth_mode: 'token',
    });
    const automation = await api<{ id: string }>(first.url, 'POST', `/factories/${factory}/automations`, {
      name: 'Triage',
      prompt: 'Triage the event.',
      enabled: true,
      triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [hook.webhook.uid] } }],
    });
    const runs = [
      (await api<{ run_id: string }>(first.url, 'POST', '/agent/run', { prompt: 'first' })).run_id,
      (await api<{ run_id: string }>(first.url, 'POST', '/agent/run', { prompt: 'second' })).run_id,
    ];

    // A second server on the same data directory is refused, and says why.
    const second = start(process.execPath, ['--conditions=agentrun-source', '--import', 'tsx', MAIN], {
      PORT: '0',
      HOST: '127.0.0.1',
      AGENTRUN_DATA_DIR: dataDir,
    });
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(`${dataDir} is in use by process `);

    // SIGTERM to the npm process, as Docker and systemd send it: the server stops, the port is free, no process is left.
    const pgid = first.child.pid as number;
    expect(group(pgid)).not.toBe('');
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(group(pgid)).toBe('');
    expect(await portIsFree(first.port)).toBe(true);

    const again = await serve();
    expect(again.output()).toContain(`API key:  the bootstrap key ${key.slice(0, 8)}… exists`);
    expect(again.output()).not.toContain(key);
    expect(again.output()).toMatch(/secrets: {2}sealed with key \S+, kept in /);
    const keys = await api<{ api_keys: { id: string; name: string }[] }>(again.url, 'GET', '/api-keys');
    expect(keys.api_keys.map((k) => [k.id, k.name])).toEqual([['bootstrap', 'bootstrap']]);
    expect(await api(again.url, 'GET', `/factories/${factory}`)).toMatchObject({ name: 'Kept' });
    expect((await api<{ secrets: { name: string }[] }>(again.url, 'GET', '/team/secrets')).secrets.map((s) => s.name)).toContain(
      'deploy-token',
    );
    expect(await api(again.url, 'GET', `/factories/${factory}/automations/${automation.id}`)).toMatchObject({ name: 'Triage' });
    for (const id of runs) {
      let state = '';
      while (state !== 'SUCCEEDED') {
        state = (await api<{ state: string }>(again.url, 'GET', `/agent/runs/${id}`)).state;
        if (['FAILED', 'ERROR', 'CANCELLED'].includes(state)) throw new Error(`run ${id} ended ${state}`);
        if (state !== 'SUCCEEDED') await new Promise((r) => setTimeout(r, 100));
      }
    }

    // The webhook's secret, sealed with the kept key before the restart, still lets a delivery in; it starts the automation's run.
    const delivered = await fetch(`${again.url}/webhooks/w/${hook.webhook.uid}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hook.secret}`, 'content-type': 'application/json' },
      body: '{"action":"opened"}',
    });
    expect(delivered.status).toBe(202);
    let triggered: { trigger?: { automation_id?: string } }[] = [];
    while (triggered.length === 0) {
      triggered = (await api<{ runs: typeof triggered }>(again.url, 'GET', '/agent/runs?source=WEBHOOK')).runs;
      if (triggered.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(triggered).toEqual([expect.objectContaining({ trigger: expect.objectContaining({ automation_id: automation.id }) })]);

    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
    expect(group(again.child.pid as number)).toBe('');
  });
});
