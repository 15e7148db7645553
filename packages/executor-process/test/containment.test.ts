import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { type AgentRun, createAgentRun, type RunItem, type Worker } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pidNamespaceProbe } from '../src/containment.js';
import { type ProcessExecutorOptions, processExecutor } from '../src/index.js';
import { attachmentFileName } from '../src/workspace.js';
import { until } from './support/agents.js';

// The PID namespace's containment (docs/executors.md, "Containment"); process-executor.test.ts runs
// the process group's. Processes are found from the host by the test's workspace root in their
// environment (an agent's pids inside its namespace are not the host's).
const principal = testPrincipal();
const namespaces = pidNamespaceProbe().ok;
if (!namespaces && process.env.CI === 'true') throw new Error('CI=true and no PID namespace can be had here');

/** Host pids of live processes whose environment mentions `marker`. */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/environ`).includes(marker)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z') found.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

describe.skipIf(!namespaces)('processExecutor in a PID namespace', () => {
  let root: string;
  let side: string;
  let agentrun: AgentRun;
  let worker: Worker | undefined;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'agentrun-executor-process-ns-'));
    side = mkdtempSync(join(tmpdir(), 'agentrun-executor-process-side-'));
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    rmSync(root, { recursive: true, force: true });
    rmSync(side, { recursive: true, force: true });
  });
  const start = (options: Partial<ProcessExecutorOptions>) => {
    const executor = processExecutor({ command: 'true', shell: true, workspaceRoot: root, containment: 'pid-namespace', ...options });
    agentrun = createAgentRun({ store: createMemoryStore(), executor });
    worker = agentrun.worker({ pollIntervalMs: 20, onError: () => {} }); // the ERROR case's error is expected
    worker.start();
  };
  const run = async (prompt: string) => (await agentrun.services.runs.create(principal, { prompt })).body.run_id;
  const ended = async (runId: string): Promise<RunItem> => {
    const done = async () =>
      ['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'].includes((await agentrun.services.runs.get(principal, runId)).state);
    await until(done, `run ${runId} to end`);
    return agentrun.services.runs.get(principal, runId);
  };

  it('a cancel is graceful: SIGTERM reaches the agent and a descendant in a session of its own, which get the grace period', async () => {
    // Each handler writes a file in `side` a little after its SIGTERM: they ran to the end, not cut short by SIGKILL.
    const agent = [
      `setsid sh -c 'trap "sleep 0.2; touch \\"$SIDE/child.term\\"; exit 0" TERM; touch "$SIDE/child.up"; while :; do sleep 0.05; done' </dev/null >/dev/null 2>&1 &`,
      `trap 'sleep 0.2; touch "$SIDE/agent.term"; exit 0' TERM`,
      'while [ ! -f "$SIDE/child.up" ]; do sleep 0.01; done',
      'echo up',
      'while :; do sleep 0.05; done',
    ].join('\n');
    start({ command: agent, env: { set: { SIDE: side } }, killGraceMs: 5000 });
    const runId = await run('go');
    await until(() => readdirSync(side).includes('child.up'), 'the descendant to start');
    await agentrun.services.runs.cancel(principal, runId);
    expect((await ended(runId)).state).toBe('CANCELLED');
    await until(() => processesWith(`=${root}/`).length === 0, 'every process of the run to be gone', 5000);
    expect(readdirSync(side).sort()).toEqual(['agent.term', 'child.term', 'child.up']);
  });

  it('an agent reads its follow-ups on stdin, and sees only its own processes in /proc', async () => {
    start({ command: `ls /proc | grep -c '^[0-9]' ; head -n 1`, shell: true });
    const runId = await run('go');
    await until(async () => (await agentrun.store.runEvents.list(runId, { limit: 10 })).some((e) => e.type === 'output'), 'the count');
    await agentrun.services.runs.followup(principal, runId, { message: 'hello' });
    expect((await ended(runId)).state).toBe('SUCCEEDED');
    const lines = (await agentrun.store.runEvents.list(runId, { limit: 100 }))
      .filter((e) => e.type === 'output')
      .map((e) => (e.data as { text: string }).text);
    // The init, the agent's shell, ls and grep (a pipeline: at most these), never the host's hundreds.
    expect(Number(lines[0])).toBeLessThanOrEqual(5);
    expect(lines[1]).toMatch(/^\{"agentrun":"followup",.*"message":"hello"\}$/);
  });

  it('a program that is not there ends the run in ERROR, as a spawn would', async () => {
    const errors: unknown[] = [];
    start({ command: join(root, 'no-such-agent'), shell: false, onError: (e) => errors.push(e) });
    expect((await ended(await run('go'))).state).toBe('ERROR');
  });

  it('leaves no agent behind when the worker is killed: the watchdog ends the namespace', async () => {
    const script = fileURLToPath(new URL('./support/worker-process.ts', import.meta.url));
    const child = spawn(process.execPath, ['--conditions=agentrun-source', '--import', 'tsx', script, root, 'sleep 60'], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, AGENTRUN_TEST_CONTAINMENT: 'pid-namespace' },
    });
    try {
      const lines: string[] = [];
      createInterface({ input: child.stdout }).on('line', (l) => lines.push(l));
      await until(() => lines.some((l) => l.startsWith('sleeping in pid')), 'the agent to sleep', 15_000);
      expect(processesWith(`=${root}/`).length).toBeGreaterThanOrEqual(3); // unshare, init, node, sleep
      child.kill('SIGKILL');
      await until(() => processesWith(`=${root}/`).length === 0, 'the orphaned namespace to be ended');
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('isolation options', () => {
  it('refuses what cannot be had, naming the option', () => {
    expect(() => processExecutor({ command: 'x', sandbox: 'bubblewrap', containment: 'process-group' })).toThrow(
      /option sandbox needs a PID namespace/,
    );
    expect(() => processExecutor({ command: 'x', user: { uid: -1, gid: 0 } })).toThrow(/option user\.uid/);
    expect(() => processExecutor({ command: 'x', user: { uid: 1 } } as never)).toThrow(/option user\.gid/);
    expect(() => processExecutor({ command: 'x', sandbox: 'docker' } as never)).toThrow(/option sandbox/);
    expect(() => processExecutor({ command: 'x', sandbox: { kind: 'bubblewrap', readOnly: ['relative'] } })).toThrow(/option sandbox/);
    expect(() => processExecutor({ command: 'x', containment: 'cgroup' } as never)).toThrow(/option containment/);
  });
});

describe('attachment file names', () => {
  it('keeps a name that fits; cuts one past 255 UTF-8 bytes on a character boundary, keeping its extension; never twice the same', () => {
    const taken = new Set<string>();
    expect(attachmentFileName('notes.txt', taken)).toBe('notes.txt');
    expect(attachmentFileName('../etc/passwd', taken)).toBe('passwd');
    const long = `${'é'.repeat(255)}.json`; // 255 characters and an extension: 515 bytes
    const first = attachmentFileName(long, taken);
    const second = attachmentFileName(long, taken);
    const third = attachmentFileName(`${'é'.repeat(300)}.json`, taken);
    for (const name of [first, second, third]) {
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
      expect(name).toMatch(/^é+(~\d+)?\.json$/); // no half character: every é whole
    }
    expect(first).toBe(`${'é'.repeat(125)}.json`);
    expect(second).toBe(`${'é'.repeat(124)}~2.json`);
    expect(new Set([first, second, third]).size).toBe(3);
    // A 4-byte character is never split.
    expect(attachmentFileName('😀'.repeat(100), taken)).toBe('😀'.repeat(63));
  });

  it('a run with a 510-byte attachment name works, its file where the rule puts it', async () => {
    // The run API refuses such a name now; a run stored before, or made by another path, still has one.
    const root = mkdtempSync(join(tmpdir(), 'agentrun-executor-process-names-'));
    try {
      const executor = processExecutor({ command: 'ls attachments; cat attachments/*', shell: true, workspaceRoot: root });
      const lines: string[] = [];
      const context = {
        signal: new AbortController().signal,
        report: async () => {},
        block: async () => {},
        resume: async () => {},
        onFollowup: () => () => {},
        record: async (entries: readonly { type: string; data: unknown }[]) => {
          for (const e of entries) if (e.type === 'output') lines.push((e.data as { text: string }).text);
        },
      };
      const name = 'é'.repeat(255);
      const run = { run_id: 'r1', prompt: 'go', attachments: [{ file_name: name, mime_type: 'text/plain', size: 5 }] };
      const input = { run: run as never, followups: [], attempt: 1, readAttachment: async () => Buffer.from('hello') };
      await expect(executor.execute(input, context as never)).resolves.toMatchObject({ status: 'succeeded' });
      expect(lines).toEqual(['é'.repeat(127), 'hello']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!namespaces || process.geteuid?.() !== 0)('an agent under its own user', () => {
  it('owns its workspace (0700), cannot list the workspace root (0711), and has HOME there', async () => {
    const root = mkdtempSync(join(tmpdir(), 'agentrun-executor-process-user-'));
    const agentrun = createAgentRun({
      store: createMemoryStore(),
      executor: processExecutor({
        command: 'id -u; echo "$HOME"; stat -c %a .; ls .. >/dev/null 2>&1 && echo listed || echo refused',
        shell: true,
        workspaceRoot: root,
        user: { uid: 65534, gid: 65534 },
      }),
    });
    const worker = agentrun.worker({ pollIntervalMs: 20 });
    worker.start();
    try {
      const runId = (await agentrun.services.runs.create(principal, { prompt: 'go' })).body.run_id;
      await until(
        async () => ['SUCCEEDED', 'FAILED', 'ERROR'].includes((await agentrun.services.runs.get(principal, runId)).state),
        'the run',
      );
      const output = (await agentrun.store.runEvents.list(runId, { limit: 100 }))
        .filter((e) => e.type === 'output')
        .map((e) => (e.data as { text: string }).text);
      expect(output[0]).toBe('65534');
      expect(output[1]).toMatch(new RegExp(`^${root}/`));
      expect(output.slice(2)).toEqual(['700', 'refused']);
      expect((statSync(root).mode & 0o777).toString(8)).toBe('711');
      expect(readdirSync(root)).toEqual([]); // removed after, though the agent owned it
    } finally {
      await worker.stop();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
