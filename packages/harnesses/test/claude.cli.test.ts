import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/support/free-port.js';
import { anthropicApi, USAGE } from '../../../test/support/model-server/anthropic.js';
import type { Step } from '../../../test/support/model-server/script.js';
import { type ModelServer, startModelServer } from '../../../test/support/model-server/server.js';
import type { HarnessEvent } from '../src/harness.js';
import { type RunDirectories, removeRunDirectories, runClaude, runDirectories } from './support/claude-cli.js';

// The pinned Claude Code, driven as the executor will drive it, against the scripted model server.
// Each run takes one to three seconds on its own; the timeouts leave room for a busy machine.
const TIMEOUT = 90_000;
const API_KEY = 'sk-ant-test-9f8e7d6c5b4a';
const SCRIPT: Step[] = [
  { shell: 'echo hi > from-shell.txt' },
  { write: { path: 'notes.md', content: '# Notes\n' } },
  { text: 'All done' },
  { text: 'Second turn done' },
];

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(script: Step[] = SCRIPT): Promise<{ server: ModelServer; dirs: RunDirectories }> {
  const server = await startModelServer([anthropicApi], script);
  const dirs = runDirectories();
  cleanups.push(
    () => server.close(),
    () => removeRunDirectories(dirs),
  );
  return { server, dirs };
}

const only = <K extends HarnessEvent['kind']>(events: HarnessEvent[], kind: K) =>
  events.filter((e): e is Extract<HarnessEvent, { kind: K }> => e.kind === kind);
const systemText = (body: unknown): string => ((body as { system?: { text?: string }[] }).system ?? []).map((b) => b.text ?? '').join('\n');

describe('claude, the real CLI', () => {
  it(
    'runs a shell step, a write step and a final text, and the parser reads the whole turn',
    async () => {
      const { server, dirs } = await setUp();
      const run = await runClaude(dirs, { prompt: 'Make the files', mcpServers: {} }, server.url, API_KEY);
      expect(run.code, run.stderr).toBe(0);
      expect(readFileSync(join(dirs.workspace, 'from-shell.txt'), 'utf8')).toBe('hi\n');
      expect(readFileSync(join(dirs.workspace, 'notes.md'), 'utf8')).toBe('# Notes\n');
      expect(run.events.map((e) => e.kind)).toEqual([
        'session',
        'tool_call',
        'tool_result',
        'tool_call',
        'tool_result',
        'text',
        'usage',
        'result',
      ]);
      const [shell, write] = only(run.events, 'tool_call');
      expect(shell).toMatchObject({ name: 'Bash', input: { command: 'echo hi > from-shell.txt' } });
      expect(write).toMatchObject({ name: 'Write', input: { file_path: join(dirs.workspace, 'notes.md') } });
      const results = only(run.events, 'tool_result');
      expect(results.map((r) => [r.call_id, r.name, r.is_error])).toEqual([
        [shell!.call_id, 'Bash', undefined],
        [write!.call_id, 'Write', undefined],
      ]);
      // Three model turns, each with its prompt tokens (cache included) and output tokens.
      const prompt = USAGE.input_tokens + USAGE.cache_creation_input_tokens + USAGE.cache_read_input_tokens;
      expect(only(run.events, 'usage')[0]).toMatchObject({ input_tokens: 3 * prompt, output_tokens: 3 * USAGE.output_tokens });
      expect(run.events.at(-1)).toEqual({ kind: 'result', status: 'succeeded', message: 'All done' });
      expect(server.requests.every((r) => r.api === 'anthropic')).toBe(true);
    },
    TIMEOUT,
  );

  it(
    'resumes the session with a follow-up: the request holds the first prompt, the tool calls and their results',
    async () => {
      const { server, dirs } = await setUp();
      const first = await runClaude(dirs, { prompt: 'Make the files', mcpServers: {} }, server.url, API_KEY);
      const session = only(first.events, 'session')[0]!.id;
      const before = server.requests.length;
      const second = await runClaude(dirs, { prompt: 'One more thing', mcpServers: {}, resume: session }, server.url, API_KEY);
      expect(second.code, second.stderr).toBe(0);
      expect(only(second.events, 'session')).toEqual([{ kind: 'session', id: session }]);
      expect(second.events.at(-1)).toEqual({ kind: 'result', status: 'succeeded', message: 'Second turn done' });
      const history = JSON.stringify((server.requests.at(-1)!.body as { messages: unknown[] }).messages);
      expect(server.requests.length).toBe(before + 1);
      for (const earlier of ['Make the files', 'echo hi > from-shell.txt', 'tool_result', 'All done']) expect(history).toContain(earlier);
      expect(history.indexOf('Make the files')).toBeLessThan(history.indexOf('One more thing'));
    },
    TIMEOUT,
  );

  it(
    'sends the model, the reasoning level and the instructions, and starts the run MCP servers',
    async () => {
      const { server, dirs } = await setUp([{ text: 'ok' }]);
      const marker = join(dirs.root, 'marker.txt');
      const mcpServer = fileURLToPath(new URL('fixtures/mcp-marker-server.mjs', import.meta.url));
      const run = await runClaude(
        dirs,
        {
          prompt: 'Say ok',
          model: 'claude-scripted-9',
          reasoningLevel: 'high',
          instructions: 'You are the scripted agent. Marker INSTR-5521.',
          mcpServers: { probe: { command: process.execPath, args: [mcpServer, '--flag'], env: { MARKER: 'M-42', MARKER_FILE: marker } } },
        },
        server.url,
        API_KEY,
      );
      expect(run.code, run.stderr).toBe(0);
      const body = server.requests[0]!.body as { model: string; output_config?: { effort?: string }; messages: unknown[] };
      expect(body.model).toBe('claude-scripted-9');
      expect(body.output_config?.effort).toBe('high');
      expect(systemText(body)).toContain('Marker INSTR-5521.');
      expect(readFileSync(marker, 'utf8')).toBe('M-42 --flag');
      const init = JSON.parse(run.stdout.split('\n')[0]!);
      expect(init.mcp_servers).toContainEqual(expect.objectContaining({ name: 'probe', status: 'connected' }));
      expect(JSON.stringify(body.messages)).toContain('mcp__probe__marker');
    },
    TIMEOUT,
  );

  it(
    'sends the API key as x-api-key and nowhere into its output',
    async () => {
      const { server, dirs } = await setUp();
      const run = await runClaude(dirs, { prompt: 'Make the files', mcpServers: {} }, server.url, API_KEY);
      expect(run.code, run.stderr).toBe(0);
      expect(server.requests.length).toBeGreaterThan(0);
      for (const request of server.requests) expect(request.headers['x-api-key']).toBe(API_KEY);
      expect(run.stdout).not.toContain(API_KEY);
      expect(run.stderr).not.toContain(API_KEY);
      expect(JSON.stringify(run.invocation)).not.toContain(API_KEY);
    },
    TIMEOUT,
  );

  it(
    'fails, and exits, when nothing listens at the endpoint',
    async () => {
      const { dirs } = await setUp();
      const run = await runClaude(dirs, { prompt: 'Hello', mcpServers: {} }, `http://127.0.0.1:${await freePort()}`, API_KEY);
      expect(run.code).not.toBe(0);
      expect(run.events.at(-1)).toMatchObject({ kind: 'result', status: 'failed' });
    },
    TIMEOUT,
  );

  it(
    'fails, and exits, when the endpoint answers garbage',
    async () => {
      const { server, dirs } = await setUp();
      server.fault = 'garbage';
      const run = await runClaude(dirs, { prompt: 'Hello', mcpServers: {} }, server.url, API_KEY);
      expect(run.code).not.toBe(0);
      expect(run.events.at(-1)).toMatchObject({ kind: 'result', status: 'failed' });
      expect(server.requests.length).toBeGreaterThan(0);
    },
    TIMEOUT,
  );

  it.skipIf(process.getuid?.() !== 0)(
    'needs IS_SANDBOX as root: without it Claude Code refuses to start',
    async () => {
      const { server, dirs } = await setUp();
      const run = await runClaude(dirs, { prompt: 'Make the files', mcpServers: {} }, server.url, API_KEY, { without: ['IS_SANDBOX'] });
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain('root');
      expect(server.requests).toEqual([]);
      expect(existsSync(join(dirs.workspace, 'from-shell.txt'))).toBe(false);
    },
    TIMEOUT,
  );
});
