import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Executor } from '@agentrun/core';
import type { ReferenceServer } from '@agentrun/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, envFor, startServer } from './support.js';

// `agentrun run --wait` and `--follow` against a server whose demo agent finishes quickly: the
// exit code is the run's (0 SUCCEEDED, 5 otherwise; the demo fails when the prompt says "fail").

let server: ReferenceServer;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startServer({ demoDurationMs: 100, pollIntervalMs: 50 });
  env = envFor(server);
});
afterAll(() => server?.close({ graceMs: 0 }));

describe.concurrent('run --wait / --follow', () => {
  it('--wait prints the finished run (--json: the API’s run) and exits 0 when it succeeded', async () => {
    const result = await cli(['run', 'Tidy the README', '--wait', '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ state: 'SUCCEEDED', prompt: 'Tidy the README' });
    // stderr is not a terminal here: no spinner drawn.
    expect(result.stderr).not.toContain('\r');
  });

  it('--wait exits 5 when the run ended otherwise, saying how', async () => {
    const result = await cli(['run', 'Please fail', '--wait'], { env });
    expect(result.code).toBe(5);
    expect(result.stdout).toMatch(/^state:\s+FAILED$/m);
    expect(result.stderr).toMatch(/ended FAILED: The demo agent was asked to fail/);
  });

  it('--follow prints the transcript live until the run ends', async () => {
    const result = await cli(['run', 'Write the release notes', '--follow'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/→ SUCCEEDED/);
    expect(result.stderr).toMatch(/^Run \S+: following its transcript$/m);
  });

  it('runs wait and runs follow stay with a run started earlier; follow replays a finished run’s transcript', async () => {
    const started = await cli(['run', 'Update the changelog', '--json'], { env });
    const { run_id } = JSON.parse(started.stdout) as { run_id: string };
    const waited = await cli(['runs', 'wait', run_id, '--timeout', '30', '--json'], { env });
    expect(waited.code, waited.stderr).toBe(0);
    expect(JSON.parse(waited.stdout)).toMatchObject({ run_id, state: 'SUCCEEDED' });
    const followed = await cli(['runs', 'follow', run_id, '--json'], { env });
    expect(followed.code, followed.stderr).toBe(0);
    const events = followed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; data: { to?: string } });
    expect(events.at(-1)).toMatchObject({ type: 'state', data: { to: 'SUCCEEDED' } });
  });
});

describe('--follow with tool calls', () => {
  // An agent that calls two tools, one failing, between lines of text (docs/run-api.md, "Run events").
  const agent: Executor = {
    async execute(_input, context) {
      await context.record?.([
        { type: 'output', data: { text: 'Looking at the repository.' } },
        { type: 'tool_call', data: { call_id: 'toolu_1', name: 'Bash', input: { command: 'ls -la' } } },
        { type: 'tool_result', data: { call_id: 'toolu_1', output: 'total 8\nREADME.md\npackage.json\n' } },
        { type: 'tool_call', data: { call_id: 'toolu_2', name: 'Read', input: { file_path: '/w/missing.json' } } },
        { type: 'tool_result', data: { call_id: 'toolu_2', name: 'Read', output: 'File does not exist.', is_error: true } },
        { type: 'output', data: { text: 'Done.' } },
      ]);
      return { status: 'succeeded' };
    },
  };
  let tools: ReferenceServer;
  let toolsEnv: Record<string, string>;
  beforeAll(async () => {
    tools = await startServer({ executor: agent, pollIntervalMs: 50 });
    toolsEnv = envFor(tools);
  });
  afterAll(() => tools?.close({ graceMs: 0 }));

  it('prints each call and result as a line between the agent’s text; --json passes the events as they are', async () => {
    const result = await cli(['run', 'Look around', '--follow'], { env: toolsEnv });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    const from = lines.indexOf('Looking at the repository.');
    expect(lines.slice(from, from + 6)).toEqual([
      'Looking at the repository.',
      '→ Bash  ls -la',
      '← Bash  ok: total 8 (+2 lines)',
      '→ Read  /w/missing.json',
      '← Read  error: File does not exist.',
      'Done.',
    ]);

    const run_id = /^Run (\S+): following/m.exec(result.stderr)?.[1] as string;
    const json = await cli(['runs', 'follow', run_id, '--json'], { env: toolsEnv });
    expect(json.code, json.stderr).toBe(0);
    const events = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; data: unknown });
    expect(events.filter((e) => e.type.startsWith('tool_'))).toEqual([
      expect.objectContaining({ type: 'tool_call', data: { call_id: 'toolu_1', name: 'Bash', input: { command: 'ls -la' } } }),
      expect.objectContaining({ type: 'tool_result', data: { call_id: 'toolu_1', output: 'total 8\nREADME.md\npackage.json\n' } }),
      expect.objectContaining({ type: 'tool_call', data: { call_id: 'toolu_2', name: 'Read', input: { file_path: '/w/missing.json' } } }),
      expect.objectContaining({
        type: 'tool_result',
        data: { call_id: 'toolu_2', name: 'Read', output: 'File does not exist.', is_error: true },
      }),
    ]);
  });
});

describe('--follow with artifacts', () => {
  // An agent that reports one artifact of each kind (docs/artifacts.md).
  const PLAN = '# Fix the flaky test\n\n- Wait on the event\n- Run it 50 times\n';
  const agent: Executor = {
    async execute(_input, context) {
      await context.reportArtifact?.({ type: 'PLAN', title: 'Flaky test plan', content: PLAN });
      await context.reportArtifact?.({ type: 'PULL_REQUEST', url: 'https://github.com/acme/app/pull/9', branch: 'fix/flaky' });
      await context.reportArtifact?.({
        type: 'SCREENSHOT',
        filepath: 'home.png',
        content: Uint8Array.from(
          atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='),
          (c) => c.charCodeAt(0),
        ),
        description: 'The home page',
      });
      await context.reportArtifact?.({
        type: 'FILE',
        filepath: 'out/report.txt',
        content: new TextEncoder().encode('report'),
        content_type: 'text/plain',
      });
      return { status: 'succeeded' };
    },
  };
  let artifacts: ReferenceServer;
  let artifactsEnv: Record<string, string>;
  beforeAll(async () => {
    artifacts = await startServer({ executor: agent, pollIntervalMs: 50 });
    artifactsEnv = envFor(artifacts);
  });
  afterAll(() => artifacts?.close({ graceMs: 0 }));

  it('prints each artifact as what it is: the plan’s Markdown, the pull request’s URL, a file’s size and how to download', async () => {
    const result = await cli(['run', 'Report artifacts', '--follow'], { env: artifactsEnv });
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout;
    expect(out).not.toMatch(/artifact: \{/);
    const [, planUid] =
      /plan: Flaky test plan\n {2}download: agentrun artifacts download (\S+) --out 'Flaky test plan.md'\n/.exec(out) ?? [];
    expect(planUid).toMatch(/\S/);
    // The plan's Markdown follows its line, as text between rules.
    expect(out).toContain(`${'─'.repeat(40)}\n# Fix the flaky test\n\n- Wait on the event\n- Run it 50 times\n${'─'.repeat(40)}\n`);
    expect(out).toMatch(/\] pull request: https:\/\/github\.com\/acme\/app\/pull\/9 \(branch fix\/flaky\)\n/);
    expect(out).toMatch(/\] screenshot: The home page, image\/png\n {2}download: agentrun artifacts download \S+ --out screenshot\.png\n/);
    const [, fileUid] =
      /\] file: out\/report\.txt \(text\/plain, 6 B\)\n {2}download: agentrun artifacts download (\S+) --out report\.txt\n/.exec(out) ?? [];
    // The command it prints downloads the file.
    const dir = mkdtempSync(join(tmpdir(), 'agentrun-follow-'));
    try {
      const saved = await cli(['artifacts', 'download', fileUid as string, '--out', join(dir, 'report.txt')], { env: artifactsEnv });
      expect(saved.code, saved.stderr).toBe(0);
      expect(readFileSync(join(dir, 'report.txt'), 'utf8')).toBe('report');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
