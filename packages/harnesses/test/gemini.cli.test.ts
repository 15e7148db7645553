import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geminiApi, geminiModelOf } from '../../../test/support/model-server/gemini.js';
import type { Step } from '../../../test/support/model-server/script.js';
import { type ModelServer, startModelServer } from '../../../test/support/model-server/server.js';
import { GEMINI_DEFAULT_MODEL, geminiHarness } from '../src/gemini/gemini-harness.js';
import type { HarnessEvent, HarnessTurn } from '../src/harness.js';
import { MCP_STDIO_SERVER } from './support/mcp-stdio-server.js';

// The real Gemini CLI (the pinned @google/gemini-cli) against the scripted model server, started
// as the executor starts it: a clean environment, the harness's variables, HOME = the run's home,
// the API key and the endpoint, stdin /dev/null (docs/harnesses.md, "Gemini CLI").

const GEMINI = fileURLToPath(new URL('../../../node_modules/.bin/gemini', import.meta.url));
const API_KEY = 'gemini-test-key-4f1c9a';
const CLI_TIMEOUT = 90_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  events: HarnessEvent[];
}

async function runGemini(turn: HarnessTurn, endpoint: string): Promise<Run> {
  const invocation = geminiHarness.invocation(turn);
  for (const file of invocation.files) {
    await mkdir(dirname(file.path), { recursive: true });
    await writeFile(file.path, file.content);
  }
  const child = spawn(GEMINI, invocation.args, {
    cwd: turn.workspace,
    env: {
      PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
      LANG: 'C.UTF-8',
      ...invocation.env,
      HOME: turn.home,
      [geminiHarness.apiKeyVariable]: API_KEY,
      [geminiHarness.endpointVariable]: endpoint,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  const parser = geminiHarness.parser();
  const events = [...stdout.split('\n').flatMap((line) => parser.line(line)), ...parser.end()];
  return { code, stdout, stderr, events };
}

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'agentrun-gemini-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A fresh workspace and home. */
async function runDirs(name: string): Promise<{ workspace: string; home: string }> {
  const workspace = join(root, name, 'workspace');
  const home = join(root, name, 'home');
  await mkdir(workspace, { recursive: true });
  await mkdir(home, { recursive: true });
  return { workspace, home };
}

const requestText = (server: ModelServer): string => JSON.stringify(server.requests.map((r) => r.body));
const systemInstruction = (body: unknown): string =>
  ((body as { systemInstruction?: { parts?: { text?: string }[] } }).systemInstruction?.parts ?? []).map((p) => p.text ?? '').join('');
const sessionOf = (run: Run): string => {
  const session = run.events.find((e) => e.kind === 'session');
  expect(session).toMatchObject({ kind: 'session', id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  return (session as { id: string }).id;
};
const contentsOf = (body: unknown) => (body as { contents: { role: string; parts: Record<string, unknown>[] }[] }).contents;

describe('gemini: a turn with tools, and its follow-up', () => {
  const script: Step[] = [
    { shell: 'echo hi > from-shell.txt' },
    { write: { path: 'notes.md', content: '# Notes\n' } },
    { text: 'All done' },
  ];
  let server: ModelServer;
  let dirs: { workspace: string; home: string };
  let first: Run;
  const firstTurn = (): HarnessTurn => ({
    ...dirs,
    prompt: 'Make the two files',
    instructions: 'Answer tersely. Prefer @types/node and `@keep/as-is`.',
    model: 'gemini-test-model',
    reasoningLevel: 'low',
    mcpServers: {
      probe: {
        command: process.execPath,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a variable the CLI must not expand
        args: [join(dirs.home, 'mcp-server.mjs'), '${HOME}'],
        env: { MCP_MARK: 'mark $GEMINI_API_KEY' },
      },
    },
  });

  beforeAll(async () => {
    server = await startModelServer([geminiApi], script);
    dirs = await runDirs('session');
    await writeFile(join(dirs.home, 'mcp-server.mjs'), MCP_STDIO_SERVER);
    first = await runGemini(firstTurn(), server.url);
  }, CLI_TIMEOUT);
  afterAll(() => server.close());

  it('runs the shell, writes the file and answers, and the parser reads all of it', async () => {
    expect(first.code).toBe(0);
    expect(await readFile(join(dirs.workspace, 'from-shell.txt'), 'utf8')).toBe('hi\n');
    expect(await readFile(join(dirs.workspace, 'notes.md'), 'utf8')).toBe('# Notes\n');
    expect(first.events.map((e) => e.kind)).toEqual([
      'session',
      'tool_call',
      'tool_result',
      'tool_call',
      'tool_result',
      'text',
      'usage',
      'result',
    ]);
    const [shell, shellResult, write, writeResult] = first.events.slice(1, 5);
    expect(shell).toMatchObject({ name: 'run_shell_command', input: { command: 'echo hi > from-shell.txt' } });
    expect(shellResult).toMatchObject({ call_id: (shell as { call_id: string }).call_id, name: 'run_shell_command' });
    expect(write).toMatchObject({ name: 'write_file', input: { file_path: 'notes.md', content: '# Notes\n' } });
    expect(writeResult).toMatchObject({ call_id: (write as { call_id: string }).call_id });
    expect(first.events.at(-2)).toMatchObject({ kind: 'usage', input_tokens: expect.any(Number) });
    expect((first.events.at(-2) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
    expect(first.events.at(-1)).toEqual({ kind: 'result', status: 'succeeded', message: 'All done' });
    // Three model turns: one request each, and nothing but the agent's streamed calls.
    expect(server.requests.map((r) => r.api)).toEqual(['gemini', 'gemini', 'gemini']);
  });

  it('asks for the run model, with its reasoning level, the instructions and the MCP server', () => {
    const [request] = server.requests;
    expect(geminiModelOf(request?.url ?? '')).toBe('gemini-test-model');
    expect(request?.url).toContain(':streamGenerateContent?alt=sse');
    const body = request?.body as { generationConfig: { thinkingConfig: object }; tools: unknown };
    expect(body.generationConfig.thinkingConfig).toMatchObject({ thinkingLevel: 'LOW' });
    // The instructions are added to the CLI's own prompt, the `@`s not taken for file imports.
    const system = systemInstruction(request?.body);
    expect(system).toContain('Answer tersely. Prefer \u2060@types/node and `@keep/as-is`.');
    expect(system).toContain('You are a non-interactive CLI agent');
    expect(system).not.toContain('Import failed');
    // The MCP server ran with its env and arguments as given: `$` is not expanded by the CLI.
    const tools = JSON.stringify(body.tools);
    expect(tools).toContain('mcp_probe_ping');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the variable, not expanded
    expect(tools).toContain('Mark: mark $GEMINI_API_KEY. Args: ${HOME}');
  });

  it('sends the API key as x-goog-api-key, and nowhere else', () => {
    for (const request of server.requests) expect(request.headers['x-goog-api-key']).toBe(API_KEY);
    expect(server.requests.every((r) => !r.url.includes(API_KEY))).toBe(true);
    expect(requestText(server)).not.toContain(API_KEY);
    expect(first.stdout).not.toContain(API_KEY);
    for (const file of geminiHarness.invocation(firstTurn()).files) expect(file.content).not.toContain(API_KEY);
  });

  it(
    'resumes a session that called tools with each tool result twice, which the Gemini API refuses',
    async () => {
      // Gemini CLI 0.61 restores a tool call's response both from the call's record and from the
      // user turn that carried it: the resumed history answers each call twice. The scripted server
      // refuses that as the API does (400), so the follow-up fails; the executor then starts a new
      // session with the conversation in its prompt (docs/harnesses.md, "Gemini CLI").
      const resume = sessionOf(first);
      const before = server.requests.length;
      const second = await runGemini({ ...firstTurn(), prompt: 'And now?', resume }, server.url);
      expect(second.code).not.toBe(0);
      expect(second.events[0]).toEqual({ kind: 'session', id: resume });
      expect(second.events.at(-1)).toMatchObject({
        kind: 'result',
        status: 'failed',
        message: expect.stringContaining('number of function response parts'),
      });
      const [request] = server.requests.slice(before);
      const contents = contentsOf(request?.body);
      expect(JSON.stringify(contents[0])).toContain('Make the two files');
      expect(contents.filter((c) => c.role === 'model')).toHaveLength(3);
      expect(contents[1]?.parts.filter((p) => 'functionCall' in p)).toHaveLength(1);
      expect(contents[2]?.parts.filter((p) => 'functionResponse' in p)).toHaveLength(2);
      expect(contents.at(-1)).toMatchObject({ role: 'user', parts: [{ text: 'And now?' }] });
    },
    CLI_TIMEOUT,
  );
});

describe('gemini: a follow-up to a turn without tools', () => {
  it(
    'continues the session: --resume gives the model the whole conversation',
    async () => {
      const server = await startModelServer([geminiApi], [{ text: 'First answer' }, { text: 'Second answer' }]);
      try {
        const turn: HarnessTurn = { ...(await runDirs('resume')), prompt: 'Say something', model: 'gemini-test-model', mcpServers: {} };
        const first = await runGemini(turn, server.url);
        expect(first.events.at(-1)).toEqual({ kind: 'result', status: 'succeeded', message: 'First answer' });
        const resume = sessionOf(first);
        const second = await runGemini({ ...turn, prompt: 'And now?', resume }, server.url);
        expect(second.code).toBe(0);
        expect(second.events[0]).toEqual({ kind: 'session', id: resume });
        expect(second.events.at(-1)).toEqual({ kind: 'result', status: 'succeeded', message: 'Second answer' });
        expect(server.requests).toHaveLength(2);
        const contents = contentsOf(server.requests[1]?.body);
        expect(JSON.stringify(contents[0])).toContain('Say something');
        expect(contents.slice(1)).toEqual([
          { role: 'model', parts: [{ text: 'First answer' }] },
          { role: 'user', parts: [{ text: 'And now?' }] },
        ]);
      } finally {
        await server.close();
      }
    },
    CLI_TIMEOUT,
  );
});

// At once: the CLI waits ~5 s before its second try at an endpoint nobody listens on.
describe.concurrent('gemini: a model endpoint that fails', () => {
  it(
    'ends failed when nothing listens on the endpoint',
    async ({ expect }) => {
      const closed = await startModelServer([geminiApi], []);
      const endpoint = closed.url;
      await closed.close();
      const run = await runGemini({ ...(await runDirs('closed')), prompt: 'hi', model: 'gemini-test-model', mcpServers: {} }, endpoint);
      expect(run.code).not.toBe(0);
      expect(run.events.at(-1)).toMatchObject({ kind: 'result', status: 'failed', message: expect.stringContaining('fetch failed') });
    },
    CLI_TIMEOUT,
  );

  it(
    'ends failed on garbage; with no model named, it asks the default model straight away',
    async ({ expect }) => {
      const server = await startModelServer([geminiApi], [{ text: 'unused' }]);
      server.fault = 'garbage';
      try {
        const dirs = await runDirs('garbage');
        const run = await runGemini({ ...dirs, prompt: 'hi', mcpServers: {} }, server.url);
        expect(run.code).not.toBe(0);
        expect(run.events.at(-1)).toMatchObject({ kind: 'result', status: 'failed' });
        // The CLI's `pro`, not its `auto`: no classifier call (`:generateContent`) before the agent's.
        expect(GEMINI_DEFAULT_MODEL).toBe('pro');
        expect(server.requests.length).toBeGreaterThan(0);
        for (const request of server.requests) {
          expect(request.url).toMatch(/^\/v1beta\/models\/gemini-[0-9.]+-pro[a-z-]*:streamGenerateContent\?alt=sse$/);
        }
        // The CLI's error report (it holds the conversation) stays in the run's home.
        const reports = (await readdir(join(dirs.home, '.gemini', 'tmp'))).filter((f) => f.startsWith('gemini-client-error-'));
        expect(reports).not.toEqual([]);
      } finally {
        await server.close();
      }
    },
    CLI_TIMEOUT,
  );
});
