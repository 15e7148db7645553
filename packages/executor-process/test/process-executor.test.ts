import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { type AgentRun, createAgentRun, type RunState, type Worker } from '@agentrun/core';
import { FAKE_SKILL_COMMIT, fakeSkillRepositories, testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ProcessExecutorOptions, processExecutor } from '../src/index.js';
import { EXAMPLE_AGENT, isRunning, pidIn, recording, until } from './support/agents.js';

const principal = testPrincipal();
/** The skill a run below names, in a fake repository (docs/repositories.md, "Skills"). */
const skills = fakeSkillRepositories(['acme/tools:triage']);

describe('processExecutor, end to end through a worker', () => {
  let root: string;
  let agentrun: AgentRun;
  let worker: Worker | undefined;
  let messages: string[];
  const errors: unknown[] = [];

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'agentrun-executor-process-test-'));
    messages = [];
    errors.length = 0;
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    rmSync(root, { recursive: true, force: true });
  });

  /** A worker running the given command (the example agent by default) on a fresh memory store. */
  const start = (options: Partial<ProcessExecutorOptions> = {}) => {
    const executor = processExecutor({
      command: process.execPath,
      args: [EXAMPLE_AGENT],
      workspaceRoot: root,
      killGraceMs: 2000,
      onError: (e) => errors.push(e),
      ...options,
    });
    agentrun = createAgentRun({
      store: createMemoryStore(),
      repositories: skills.reader,
      executor: recording(executor, (m) => messages.push(m)),
    });
    worker = agentrun.worker({ pollIntervalMs: 20, onError: (e) => errors.push(e) });
    worker.start();
  };
  const create = async (prompt: string, extra: Record<string, unknown> = {}) =>
    (await agentrun.services.runs.create(principal, { prompt, ...extra })).body.run_id;
  const get = (runId: string) => agentrun.services.runs.get(principal, runId);
  const settled = async (runId: string, state: RunState) => {
    await until(async () => ['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'].includes((await get(runId)).state), `run ${runId} to end`);
    const run = await get(runId);
    expect(run.state, JSON.stringify(run.status_message)).toBe(state);
    return run;
  };

  it('succeeds when the agent exits 0, with the session and the artifact it reported, and removes the workspace', async () => {
    start();
    const runId = await create('Summarise the repository');
    const run = await settled(runId, 'SUCCEEDED');
    expect(run.status_message).toEqual({ message: 'The agent finished' });
    expect(run.session_id).toBe(`session-${runId}`);
    expect(run.request_usage).toEqual({ compute_cost: 0.01, inference_cost: expect.any(Number) });
    expect(run.session_link).toBe(`https://agents.example/s/${runId}`);
    expect(messages).toContain('Artifact (file): summary.md');
    expect(messages.some((m) => /^Read the prompt \(\d+ characters\)$/.test(m))).toBe(true);
    expect(readdirSync(root)).toEqual([]);
    // Plain lines and the artifact are in the run's transcript; protocol status lines are status events.
    const events = await agentrun.store.runEvents.list(runId, { limit: 1000 });
    const output = events.filter((e) => e.type === 'output').map((e) => (e.data as { text: string }).text);
    expect(output).toContain('all done');
    expect(output.some((t) => t.startsWith('agent pid '))).toBe(true);
    expect(output.some((t) => t.includes('"agentrun"'))).toBe(false);
    expect(events.filter((e) => e.type === 'artifact').map((e) => e.data)).toEqual([
      expect.objectContaining({ type: 'file', path: 'summary.md' }),
    ]);
  });

  it('stores one event per line, in the order printed, across plain lines and protocol messages, bursts larger than a batch included', async () => {
    // What the agent prints, in three bursts (the second, of 260 lines, written at once: more than
    // one batch), and the one event each line should leave; blank and result lines leave none.
    const bursts: string[][] = [[], [], []];
    const expected: { type: string; data: unknown }[] = [];
    const plain = (burst: number, text: string) => {
      bursts[burst]?.push(text);
      expected.push({ type: 'output', data: { text } });
    };
    const message = (burst: number, line: Record<string, unknown>, event?: { type: string; data: unknown }) => {
      bursts[burst]?.push(JSON.stringify({ agentrun: line.agentrun, ...line }));
      if (event) expected.push(event);
    };
    plain(0, 'starting');
    message(0, { agentrun: 'session', id: 's-1' }, { type: 'status', data: { message: 'Session started', session_id: 's-1' } });
    message(0, { agentrun: 'status', message: 'Read the prompt' }, { type: 'status', data: { message: 'Read the prompt' } });
    plain(0, 'thinking');
    for (let i = 0; i < 260; i++) {
      if (i % 5 === 0) message(1, { agentrun: 'status', message: `step ${i}` }, { type: 'status', data: { message: `step ${i}` } });
      else if (i % 40 === 7)
        message(
          1,
          { agentrun: 'artifact', type: 'file', path: `f${i}.md` },
          { type: 'artifact', data: { type: 'file', path: `f${i}.md` } },
        );
      else if (i === 101) plain(1, '{"agentrun":"not a message"}');
      else plain(1, `line ${i}`);
    }
    plain(2, 'all done');
    bursts[2]?.push('');
    message(2, { agentrun: 'status', message: 'Finished' }, { type: 'status', data: { message: 'Finished' } });
    message(2, { agentrun: 'result', status: 'succeeded', message: 'Did it all' });
    // The first two bursts in one write each; the last a line at a time. The pauses between them
    // only vary how lines meet the writer's batches: no assertion depends on them.
    const agent = `
      const bursts = JSON.parse(process.env.BURSTS);
      const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
      (async () => {
        process.stdout.write(bursts[0].join('\\n') + '\\n');
        await pause(0);
        process.stdout.write(bursts[1].join('\\n') + '\\n');
        await pause(80);
        for (const line of bursts[2]) { process.stdout.write(line + '\\n'); await new Promise(setImmediate); }
      })();`;
    start({ args: ['-e', agent], env: { set: { BURSTS: JSON.stringify(bursts) } } });
    const runId = await create('interleave');
    const run = await settled(runId, 'SUCCEEDED');
    expect(run.status_message).toEqual({ message: 'Did it all' });
    const events = await agentrun.store.runEvents.list(runId, { limit: 1000 });
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(events.map((e) => ({ type: e.type, data: e.data }))).toEqual([
      { type: 'state', data: { from: 'QUEUED', to: 'CLAIMED', status_message: null } },
      {
        type: 'state',
        data: { from: 'CLAIMED', to: 'INPROGRESS', status_message: expect.stringMatching(/^Started on worker .+ \(host default\)$/) },
      },
      ...expected,
      { type: 'state', data: { from: 'INPROGRESS', to: 'SUCCEEDED', status_message: 'Did it all' } },
    ]);
  });

  it('a plain line is the run’s status without a status event repeating it', async () => {
    // One line, then the agent waits for a follow-up, so the status can be seen while it runs.
    start({ args: ['-e', "console.log('working hard'); process.stdin.once('data', () => process.exit(0))"] });
    const runId = await create('go');
    await until(async () => (await get(runId)).status_message?.message === 'working hard', 'the line to be the status');
    await agentrun.services.runs.followup(principal, runId, { message: 'you can stop' });
    await settled(runId, 'SUCCEEDED');
    const events = await agentrun.store.runEvents.list(runId, { limit: 100 });
    expect(events.filter((e) => e.type !== 'state' && e.type !== 'followup').map((e) => ({ type: e.type, data: e.data }))).toEqual([
      { type: 'output', data: { text: 'working hard' } },
    ]);
  });

  it('keeps every line among NUL bytes and binary garbage, one event each, the altered ones marked (docs/executors.md, "Text a store cannot keep")', async () => {
    // Stores refuse NUL and lone surrogates (PostgreSQL would refuse the whole batch of lines that
    // holds one NUL, and the outcome): core makes them U+FFFD and marks the event, whatever the store.
    const agent = `
      const garbage = Buffer.from([...Array(256).keys()].filter((b) => b !== 10 && b !== 13));
      const json = (o) => Buffer.from(JSON.stringify(o) + '\\n');
      process.stdout.write(Buffer.concat([
        Buffer.from('first\\nnul\\0here\\n'), garbage, Buffer.from('\\nmiddle\\n\\0\\n'),
        json({ agentrun: 'status', message: 'status\\0line' }),
        json({ agentrun: 'artifact', type: 'file', name: 'a\\0b' }),
        Buffer.from('last\\n'),
        json({ agentrun: 'result', status: 'failed', message: 'bad \\ud800 end', error_code: 'code\\0' }),
      ]));`;
    start({ args: ['-e', agent] });
    const runId = await create('print garbage');
    const run = await settled(runId, 'FAILED');
    expect(run.status_message).toEqual({ message: 'bad \ufffd end', error_code: 'code\ufffd' });
    const garbage = Buffer.from([...Array(256).keys()].filter((b) => b !== 10 && b !== 13))
      .toString('utf8')
      .replaceAll('\0', '\ufffd');
    const events = await agentrun.store.runEvents.list(runId, { limit: 100 });
    expect(events.filter((e) => e.type !== 'state').map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'output', data: { text: 'first' } },
      { type: 'output', data: { text: 'nul\ufffdhere', sanitized: true } },
      { type: 'output', data: { text: garbage, sanitized: true } },
      { type: 'output', data: { text: 'middle' } },
      { type: 'output', data: { text: '\ufffd', sanitized: true } },
      { type: 'status', data: { message: 'status\ufffdline', sanitized: true } },
      { type: 'artifact', data: { type: 'file', name: 'a\ufffdb', sanitized: true } },
      { type: 'output', data: { text: 'last' } },
    ]);
    expect(errors).toEqual([]);
  });

  it('fails with the tail of stderr when the agent exits non-zero, and keeps the workspace on failure when asked', async () => {
    start({ keepWorkspaces: 'on-failure' });
    const runId = await create('Please fail now');
    const run = await settled(runId, 'FAILED');
    expect(run.status_message).toEqual({
      message: 'The agent exited with code 1: Something went wrong: the prompt asked me to fail',
      error_code: 'agent_exit',
    });
    expect(readdirSync(root)).toHaveLength(1);
  });

  it('keeps only the last 2 KB of stderr', async () => {
    start({ args: ['-e', "process.stderr.write('x'.repeat(5000) + 'END'); process.exit(3)"] });
    const run = await settled(await create('noisy'), 'FAILED');
    const message = run.status_message?.message ?? '';
    expect(message.startsWith('The agent exited with code 3: xxx')).toBe(true);
    expect(message.endsWith('END')).toBe(true);
    expect(message.length).toBeLessThan(2100);
  });

  it('a result line decides the outcome and its error code', async () => {
    const line = JSON.stringify({ agentrun: 'result', status: 'failed', message: 'Tests are red', error_code: 'tests_failed' });
    start({ args: ['-e', `console.log(${JSON.stringify(line)})`] });
    const run = await settled(await create('go'), 'FAILED');
    expect(run.status_message).toEqual({ message: 'Tests are red', error_code: 'tests_failed' });
  });

  it('usage lines set the run’s request_usage (totals so far, merged), with no event; a bad one is an output line', async () => {
    const lines = [
      { agentrun: 'usage', compute_cost: 0.5 },
      ...Array.from({ length: 200 }, (_, i) => ({ agentrun: 'usage', inference_cost: i })),
      { agentrun: 'usage', inference_cost_usd: 2e15, compute_cost: 1.5 },
      { agentrun: 'usage', compute_cost: -1 },
    ].map((m) => JSON.stringify(m));
    start({ args: ['-e', `for (const line of ${JSON.stringify(lines)}) console.log(line)`] });
    const runId = await create('go');
    const run = await settled(runId, 'SUCCEEDED');
    expect(run.request_usage).toEqual({ compute_cost: 1.5, inference_cost: 199, inference_cost_usd: 1e12 });
    const events = await agentrun.store.runEvents.list(runId, { limit: 1000 });
    expect(events.filter((e) => e.type === 'output').map((e) => (e.data as { text: string }).text)).toEqual([lines.at(-1)]);
  });

  // The pid checks below read the host's pids: the process-group containment (containment.test.ts has the PID namespace's).
  it('fails with error_code timeout when the agent outlives timeoutMs, and its process group is gone', async () => {
    // A shell prints its pid at once (well before the timeout, however busy the machine), then sleeps as that pid.
    start({
      command: 'echo "agent pid $$"; exec sleep 30',
      args: [],
      shell: true,
      timeoutMs: 1000,
      killGraceMs: 200,
      containment: 'process-group',
    });
    const run = await settled(await create('go'), 'FAILED');
    expect(run.status_message).toEqual({ message: 'The agent ran longer than 1000 ms', error_code: 'timeout' });
    const agent = pidIn(messages, 'agent pid') as number;
    expect(agent).toBeGreaterThan(0);
    expect(isRunning(agent)).toBe(false);
  });

  it('a cancel while running sends SIGTERM to the whole process group (the agent and its child)', async () => {
    start({ containment: 'process-group' });
    const runId = await create('sleep 30');
    await until(() => pidIn(messages, 'sleeping in pid') !== undefined, 'the agent to sleep');
    const agent = pidIn(messages, 'agent pid') as number;
    const sleeper = pidIn(messages, 'sleeping in pid') as number;
    expect(isRunning(agent) && isRunning(sleeper)).toBe(true);
    await agentrun.services.runs.cancel(principal, runId);
    await until(() => !isRunning(agent) && !isRunning(sleeper), 'the process group to end');
    expect((await get(runId)).state).toBe('CANCELLED');
    await until(() => readdirSync(root).length === 0, 'the workspace to be removed');
  });

  it('delivers a follow-up to the running agent on its stdin', async () => {
    start();
    const runId = await create('sleep 30');
    await until(() => pidIn(messages, 'sleeping in pid') !== undefined, 'the agent to sleep');
    await agentrun.services.runs.followup(principal, runId, { message: 'Also update the changelog' });
    await until(() => messages.some((m) => /^Follow-up \S+: Also update the changelog$/.test(m)), 'the agent to answer the follow-up');
    await agentrun.services.runs.cancel(principal, runId);
  });

  it('a command that cannot start ends the run in ERROR', async () => {
    start({ command: join(root, 'no-such-agent'), args: [] });
    const run = await settled(await create('go'), 'ERROR');
    expect(run.status_message).toMatchObject({ error_code: 'executor_error' });
    expect(String(errors[0])).toMatch(/could not start: spawn .* ENOENT/);
  });

  it('a shell command line that is not found ends the run in ERROR', async () => {
    start({ command: 'agentrun-no-such-agent-cli --flag', args: [], shell: true });
    await settled(await create('go'), 'ERROR');
    expect(String(errors[0])).toMatch(/could not start \(exit 127\)/);
  });

  it("starts the agent whatever PATH env.set gives it: what wraps the agent is found on the server's", async () => {
    start({ command: 'echo "started with $PATH"', shell: true, env: { set: { PATH: '/nonexistent' } } });
    await settled(await create('go'), 'SUCCEEDED');
  });

  it("passes only the fixed variables, the allowed ones and env.set: the server's secrets stay out", async () => {
    process.env.AGENTRUN_TEST_SERVER_SECRET = 'do-not-leak';
    process.env.AGENTRUN_TEST_ALLOWED = 'allowed-value';
    try {
      start({
        args: ['-e', "require('node:fs').writeFileSync('env.json', JSON.stringify(process.env))"],
        env: { allow: ['AGENTRUN_TEST_ALLOWED'], set: { AGENT_MODE: 'ci' } },
        keepWorkspaces: 'always',
      });
      const runId = await create('go');
      await settled(runId, 'SUCCEEDED');
      const [dir] = readdirSync(root);
      const workspace = join(root, dir as string, 'workspace');
      const env = JSON.parse(readFileSync(join(workspace, 'env.json'), 'utf8'));
      expect(env).toEqual({
        PATH: process.env.PATH,
        ...(process.env.HOME ? { HOME: process.env.HOME } : {}),
        ...(process.env.LANG ? { LANG: process.env.LANG } : {}),
        // The run's own, whatever the server's is (docs/executors.md, "The agent's environment").
        TMPDIR: join(root, dir as string, 'tmp'),
        AGENTRUN_TEST_ALLOWED: 'allowed-value',
        AGENT_MODE: 'ci',
        AGENTRUN_RUN_ID: runId,
        AGENTRUN_ATTEMPT: '1',
        AGENTRUN_WORKSPACE: workspace,
        AGENTRUN_PROMPT_FILE: join(workspace, 'prompt.md'),
        AGENTRUN_MCP_CONFIG: join(workspace, 'mcp.json'),
      });
      expect(JSON.stringify(env)).not.toContain('do-not-leak');
    } finally {
      delete process.env.AGENTRUN_TEST_SERVER_SECRET;
      delete process.env.AGENTRUN_TEST_ALLOWED;
    }
  });

  it.skipIf(process.geteuid?.() !== 0)(
    'reports a run directory it cannot remove, to onError and in the transcript, rather than forgetting it',
    async () => {
      // An immutable file (root's chattr +i): not even root's rm removes it.
      // No args: through the shell they would follow `stuck` (the example agent's path made immutable too).
      start({ command: 'touch stuck && chattr +i stuck', args: [], shell: true });
      const runId = await create('go');
      await settled(runId, 'SUCCEEDED');
      const [dir] = readdirSync(root);
      try {
        expect(errors.map(String)).toEqual([
          expect.stringMatching(new RegExp(`the run's directory ${join(root, dir as string)} could not be removed`)),
        ]);
        const events = await agentrun.store.runEvents.list(runId, { limit: 100 });
        expect(events.map((e) => e.data)).toContainEqual({ message: expect.stringMatching(/could not be removed/) });
      } finally {
        spawnSync('chattr', ['-i', join(root, dir as string, 'workspace', 'stuck')]);
      }
    },
  );

  it('lays out the workspace: prompt.md with the resolved skill and base prompt, run.json, mcp.json, attachments; removed after the run', async () => {
    const script = `
      const fs = require('node:fs');
      const files = { top: fs.readdirSync('.').sort(), attachments: fs.readdirSync('attachments').sort(),
        prompt: fs.readFileSync('prompt.md', 'utf8'), mcp: JSON.parse(fs.readFileSync('mcp.json', 'utf8')),
        run: JSON.parse(fs.readFileSync('run.json', 'utf8')), notes: fs.readFileSync('attachments/notes.txt', 'utf8') };
      console.log(JSON.stringify({ agentrun: 'result', status: 'succeeded', message: JSON.stringify(files) }));`;
    start({ args: ['-e', script] });
    await skills.register(agentrun.store, principal.team_uid);
    const runId = await create('Fix the bug', {
      config: { base_prompt: 'You are careful.', mcp_servers: { github: { url: 'https://mcp.example/github' } } },
      skill: 'acme/tools:triage',
      attachments: [{ file_name: 'notes.txt', mime_type: 'text/plain', data: Buffer.from('see line 42').toString('base64') }],
    });
    const run = await settled(runId, 'SUCCEEDED');
    const files = JSON.parse(run.status_message?.message ?? '{}');
    expect(files.top).toEqual(['attachments', 'mcp.json', 'prompt.md', 'run.json']);
    expect(files.attachments).toEqual(['notes.txt']);
    expect(files.notes).toBe('see line 42');
    // The skill's SKILL.md body first, then the caller's base prompt, the skill's pin, the prompt.
    expect(files.prompt).toBe(
      `Do triage.\n\nYou are careful.\n\nThe instructions above are the skill \`triage\` (acme/tools:skills/triage/SKILL.md at commit ${FAKE_SKILL_COMMIT}).\n\nFix the bug\n`,
    );
    expect(files.mcp).toEqual({ mcpServers: { github: { url: 'https://mcp.example/github' } } });
    expect(files.run).toMatchObject({ run: { run_id: runId, prompt: 'Fix the bug' }, attempt: 1, followups: [] });
    expect(readdirSync(root)).toEqual([]);
  });

  it('fails with error_code disk_limit when the workspace grows beyond maxWorkspaceBytes', async () => {
    start({
      args: ['-e', "require('node:fs').writeFileSync('big.bin', Buffer.alloc(200000)); setTimeout(() => {}, 30000)"],
      maxWorkspaceBytes: 100_000,
      killGraceMs: 200,
    });
    const run = await settled(await create('go'), 'FAILED');
    expect(run.status_message).toMatchObject({ error_code: 'disk_limit' });
  });
});

describe('processExecutor, an attachment the store lost', () => {
  it('throws (the run ends in ERROR) and leaves no workspace behind, even with keepWorkspaces always', async () => {
    const root = mkdtempSync(join(tmpdir(), 'agentrun-executor-process-test-'));
    try {
      const executor = processExecutor({ command: process.execPath, args: [EXAMPLE_AGENT], workspaceRoot: root, keepWorkspaces: 'always' });
      const run = { run_id: 'r1', prompt: 'go', attachments: [{ file_name: 'gone.txt', mime_type: 'text/plain', size: 1 }] };
      const context = {
        signal: new AbortController().signal,
        report: async () => {},
        block: async () => {},
        resume: async () => {},
        onFollowup: () => () => {},
      };
      const input = { run: run as never, followups: [], attempt: 1, readAttachment: async () => undefined };
      await expect(executor.execute(input, context)).rejects.toThrow(/attachment "gone.txt" of run r1 is missing/);
      expect(readdirSync(root)).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('processExecutor, follow-ups once the agent exited', () => {
  it('stops listening as soon as the agent exits, while its last output is still being written', async () => {
    // A follow-up after the exit would go to a stdin nobody reads: left to the worker, it queues
    // the run again with it (docs/executors.md, "Follow-ups"). The store's write of the agent's
    // output is held, so the execution cannot end before the test has seen the listener go.
    const root = mkdtempSync(join(tmpdir(), 'agentrun-executor-process-test-'));
    try {
      const executor = processExecutor({ command: process.execPath, args: ['-e', "console.log('last line')"], workspaceRoot: root });
      let releaseRecord = () => {};
      const held = new Promise<void>((resolve) => {
        releaseRecord = resolve;
      });
      let recorded = false;
      let listening = false;
      let stopped: () => void = () => {};
      const stoppedListening = new Promise<void>((resolve) => {
        stopped = resolve;
      });
      const context = {
        signal: new AbortController().signal,
        report: async () => {},
        block: async () => {},
        resume: async () => {},
        onFollowup: () => {
          listening = true;
          return () => {
            if (!listening) return;
            listening = false;
            stopped();
          };
        },
        record: async () => {
          await held;
          recorded = true;
        },
      };
      const input = {
        run: { run_id: 'r1', prompt: 'go', attachments: [] } as never,
        followups: [],
        attempt: 1,
        readAttachment: async () => undefined,
      };
      const execution = executor.execute(input, context);
      await stoppedListening;
      expect(recorded).toBe(false);
      releaseRecord();
      await expect(execution).resolves.toEqual({ status: 'succeeded', message: 'The agent finished' });
      expect(recorded).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('processExecutor options', () => {
  it('rejects a wrong option with a TypeError that names it', () => {
    expect(() => processExecutor({ command: '' })).toThrow(/processExecutor: option command must not be empty/);
    expect(() => processExecutor({ command: 'x', timeoutMS: 5 } as never)).toThrow(/unknown option timeoutMS \(did you mean timeoutMs\?\)/);
    expect(() => processExecutor({ command: 'x', keepWorkspaces: 'sometimes' } as never)).toThrow(/option keepWorkspaces/);
    expect(() => processExecutor({ command: 'x', env: { allow: ['NOT A NAME'] } })).toThrow(/option env\.allow\.0/);
    expect(() => processExecutor({ harnesses: {} })).toThrow(/processExecutor: nothing to run: give option command/);
    expect(() => processExecutor({ command: 'x', harnesses: { claude: { path: '/nowhere/claude' } } })).toThrow(
      /option harnesses\.claude: claude is not installed here/,
    );
    expect(() => processExecutor({ command: 'x', harnesses: {}, defaultHarness: 'codex' })).toThrow(
      /option defaultHarness: codex is not available here \(it runs command\)/,
    );
    expect(() => processExecutor({ command: 'x', endpoints: { claude: 'file:///etc' } })).toThrow(
      /option endpoints\.claude must be an http\(s\) URL/,
    );
    expect(() => processExecutor({ command: 'x', repositories: { resolve: () => 'c' } } as never)).toThrow(
      /option repositories must have resolve and checkout functions/,
    );
  });
});

describe('a worker killed with SIGKILL', () => {
  it('leaves no agent behind: the watchdog ends its process group', async () => {
    const root = mkdtempSync(join(tmpdir(), 'agentrun-executor-process-test-'));
    const script = fileURLToPath(new URL('./support/worker-process.ts', import.meta.url));
    const child = spawn(process.execPath, ['--conditions=agentrun-source', '--import', 'tsx', script, root, 'sleep 60'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const lines: string[] = [];
      createInterface({ input: child.stdout }).on('line', (l) => lines.push(l));
      await until(() => pidIn(lines, 'sleeping in pid') !== undefined, 'the agent to sleep', 15_000);
      const agent = pidIn(lines, 'agent pid') as number;
      const sleeper = pidIn(lines, 'sleeping in pid') as number;
      expect(isRunning(agent) && isRunning(sleeper)).toBe(true);
      child.kill('SIGKILL');
      await until(() => !isRunning(agent) && !isRunning(sleeper), 'the orphaned agent to be ended');
    } finally {
      child.kill('SIGKILL');
      rmSync(root, { recursive: true, force: true });
    }
  });
});
