import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openaiApi } from '../../../test/support/model-server/openai.js';
import { type ModelServer, type RecordedRequest, startModelServer } from '../../../test/support/model-server/server.js';
import { codexHarness, type HarnessEvent, type HarnessTurn } from '../src/index.js';

/**
 * The real `codex` (the pinned @openai/codex) against the scripted model server, started the way
 * the executor starts it: a clean environment with the invocation's variables, HOME in the run's
 * home, the API key and endpoint in the harness's variables, stdin closed.
 */
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const CODEX = join(repo, 'node_modules/.bin/codex');
const MCP_SERVER = fileURLToPath(new URL('fixtures/codex/mcp-server.mjs', import.meta.url));
const API_KEY = 'sk-agentrun-test-4c1d9e';
/** A model in Codex 0.171's catalog that gets `exec_command` and `apply_patch` as tools of their own. */
const MODEL = 'gpt-5.5';
/** Long enough for a cold start on a busy machine; Codex ends far sooner, or the test fails on the kill. */
const KILL_AFTER_MS = 60_000;

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  events: HarnessEvent[];
}

const roots: string[] = [];
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

/** A run directory: a workspace and a home. */
async function runDir(): Promise<{ workspace: string; home: string }> {
  const root = await mkdtemp(join(tmpdir(), 'agentrun-codex-'));
  roots.push(root);
  const dirs = { workspace: join(root, 'workspace'), home: join(root, 'home') };
  await Promise.all(Object.values(dirs).map((dir) => mkdir(dir, { recursive: true })));
  return dirs;
}

async function runCodex(turn: HarnessTurn, extraArgs: string[] = []): Promise<Ran> {
  const invocation = codexHarness.invocation(turn);
  for (const file of invocation.files) {
    await mkdir(dirname(file.path), { recursive: true });
    await writeFile(file.path, file.content);
  }
  const env: Record<string, string> = {
    // The codex launcher and the MCP server are node scripts.
    PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
    LANG: 'C.UTF-8',
    ...invocation.env,
    HOME: turn.home,
    [codexHarness.apiKeyVariable]: API_KEY,
    ...(turn.endpoint ? { [codexHarness.endpointVariable]: turn.endpoint } : {}),
  };
  const child = spawn(CODEX, [...extraArgs, ...invocation.args], {
    cwd: turn.workspace,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: KILL_AFTER_MS,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (c, s) => resolve([c, s])),
  );
  const parser = codexHarness.parser();
  const events = [...stdout.split('\n').flatMap((line) => parser.line(line)), ...parser.end()];
  return { code, signal, stdout, stderr, events };
}

const sessionOf = (ran: Ran): string => {
  const session = ran.events.find((e) => e.kind === 'session');
  if (!session) throw new Error(`no session in:\n${ran.stdout}\n${ran.stderr}`);
  return session.id;
};

/** The model requests one thread made (Codex sends its thread id with each). */
const requestsOf = (server: ModelServer, thread: string): RecordedRequest[] =>
  server.requests.filter((r) => r.headers['thread-id'] === thread && r.api === 'openai');

type InputItem = { type?: string; role?: string; name?: string; content?: { text?: string }[] };
const inputOf = (request: RecordedRequest | undefined): InputItem[] => (request?.body as { input?: InputItem[] } | undefined)?.input ?? [];
const textsOf = (request: RecordedRequest | undefined, role: string): string[] =>
  inputOf(request)
    .filter((i) => i.type === 'message' && i.role === role)
    .flatMap((i) => (i.content ?? []).map((c) => c.text ?? ''));

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer(
    [openaiApi],
    [
      { shell: 'echo hi > from-shell.txt' },
      { write: { path: 'notes.md', content: '# Notes\nWritten by the scripted model.\n' } },
      { text: 'All done' },
      { text: 'Resumed: done' },
    ],
  );
});
afterAll(() => server?.close());

const turnIn = async (extra: Partial<HarnessTurn> = {}): Promise<HarnessTurn> => ({
  ...(await runDir()),
  prompt: 'Make the two files.',
  model: MODEL,
  mcpServers: {},
  endpoint: `${server.url}/v1`,
  ...extra,
});

// Each test starts codex once or twice; a cold start on a loaded machine takes seconds.
describe('codex harness, driving the real codex', { timeout: 150_000 }, () => {
  it('runs a shell command, writes a file and answers, as the stream tells', async () => {
    const turn = await turnIn();
    const ran = await runCodex(turn);
    expect(ran.code, ran.stderr).toBe(0);
    expect(await readFile(join(turn.workspace, 'from-shell.txt'), 'utf8')).toBe('hi\n');
    expect(await readFile(join(turn.workspace, 'notes.md'), 'utf8')).toBe('# Notes\nWritten by the scripted model.\n');
    const kinds = ran.events.map((e) => (e.kind === 'tool_call' || e.kind === 'tool_result' ? `${e.kind}:${e.name}` : e.kind));
    expect(kinds).toEqual([
      'session',
      'tool_call:shell',
      'tool_result:shell',
      'tool_call:apply_patch',
      'tool_result:apply_patch',
      'text',
      'usage',
      'result',
    ]);
    const calls = ran.events.filter((e) => e.kind === 'tool_call');
    const results = ran.events.filter((e) => e.kind === 'tool_result');
    expect(results.map((r) => r.call_id)).toEqual(calls.map((c) => c.call_id));
    expect(JSON.stringify(calls[0]?.input)).toContain('echo hi > from-shell.txt');
    expect(results.some((r) => r.is_error)).toBe(false);
    expect(ran.events.find((e) => e.kind === 'usage')).toMatchObject({
      input_tokens: expect.any(Number),
      output_tokens: expect.any(Number),
    });
    expect(ran.events.at(-1)).toEqual({ kind: 'result', status: 'succeeded', message: 'All done' });
    expect(requestsOf(server, sessionOf(ran))).toHaveLength(3);
  });

  it('runs the same script with the default (code-mode) model when no model is given', async () => {
    const turn = await turnIn({ model: undefined });
    const ran = await runCodex(turn);
    expect(ran.code, ran.stderr).toBe(0);
    expect(existsSync(join(turn.workspace, 'from-shell.txt'))).toBe(true);
    expect(existsSync(join(turn.workspace, 'notes.md'))).toBe(true);
    expect(ran.events.at(-1)).toEqual({ kind: 'result', status: 'succeeded', message: 'All done' });
  });

  it('continues the session with exec resume: the model gets the earlier turns', async () => {
    const turn = await turnIn();
    const first = await runCodex(turn);
    expect(first.code, first.stderr).toBe(0);
    const thread = sessionOf(first);
    const second = await runCodex({ ...turn, prompt: '-And now?', resume: thread });
    expect(second.code, second.stderr).toBe(0);
    expect(sessionOf(second)).toBe(thread);
    expect(second.events.at(-1)).toEqual({ kind: 'result', status: 'succeeded', message: 'Resumed: done' });
    const requests = requestsOf(server, thread);
    expect(requests).toHaveLength(4);
    const resumed = inputOf(requests.at(-1));
    expect(resumed.filter((i) => i.type === 'function_call' || i.type === 'custom_tool_call').map((i) => i.name)).toEqual([
      'exec_command',
      'apply_patch',
    ]);
    expect(textsOf(requests.at(-1), 'assistant')).toEqual(['All done']);
    expect(textsOf(requests.at(-1), 'user').slice(-2)).toEqual(['Make the two files.', '-And now?']);
  });

  it('sends the model, the instructions and the reasoning effort, and starts the MCP servers', async () => {
    const instructions = 'Be brief. "Quoted", back\\slash, tab\there,\nnew line, ünïcödé 🎉, DEL \u007f, [not] = a table';
    const turn = await turnIn({
      instructions,
      reasoningLevel: 'High',
      mcpServers: { echo: { command: 'node', args: [MCP_SERVER], env: { MCP_ECHO_PREFIX: 'echo: ' } } },
    });
    // --strict-config: Codex refuses a config key it does not know, so every key written is one it reads.
    const ran = await runCodex(turn, ['--strict-config']);
    expect(ran.code, ran.stderr).toBe(0);
    const [request] = requestsOf(server, sessionOf(ran));
    const body = request?.body as { model?: string; reasoning?: { effort?: string } };
    expect(body.model).toBe(MODEL);
    expect(body.reasoning?.effort).toBe('high');
    const developer = textsOf(request, 'developer');
    expect(developer).toContain(instructions);
    // Codex lists an MCP server's tools (deferred, found by tool_search) only once it has started it.
    expect(developer.join('\n')).toMatch(/^- mcp__echo$/m);
  });

  it('sends the API key as the bearer token, and keeps it from the agent and stdout', async () => {
    const keyServer = await startModelServer([openaiApi], [{ shell: 'env' }, { text: 'Listed.' }]);
    try {
      const ran = await runCodex(await turnIn({ endpoint: `${keyServer.url}/v1` }));
      expect(ran.code, ran.stderr).toBe(0);
      const envResult = ran.events.find((e) => e.kind === 'tool_result');
      expect(envResult?.kind === 'tool_result' && envResult.output).toContain('CODEX_HOME=');
      expect(keyServer.requests.length).toBeGreaterThan(0);
      for (const request of keyServer.requests) expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
      expect(ran.stdout).not.toContain(API_KEY);
    } finally {
      await keyServer.close();
    }
  });

  it('fails on its own when the endpoint refuses connections', async () => {
    const port = await closedPort();
    const ran = await runCodex(await turnIn({ endpoint: `http://127.0.0.1:${port}/v1` }));
    expect(ran.signal).toBeNull();
    expect(ran.code).not.toBe(0);
    expect(ran.events.at(-1)).toMatchObject({ kind: 'result', status: 'failed' });
  });

  it('fails on its own when the endpoint answers garbage', async () => {
    const garbage = await startModelServer([openaiApi], [{ text: 'never' }]);
    garbage.fault = 'garbage';
    try {
      const ran = await runCodex(await turnIn({ endpoint: `${garbage.url}/v1` }));
      expect(ran.signal).toBeNull();
      expect(ran.code).not.toBe(0);
      expect(ran.events.at(-1)).toMatchObject({ kind: 'result', status: 'failed' });
      expect(garbage.requests.length).toBeGreaterThan(0);
    } finally {
      await garbage.close();
    }
  });
});

/** A port nothing listens on: one the system just gave out and took back. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
