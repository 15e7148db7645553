import { join } from 'node:path/posix';
import type { Harness, HarnessTurn, Invocation, McpServer } from '../harness.js';
import { claudeStreamParser } from './claude-stream.js';

/**
 * Claude Code (`@anthropic-ai/claude-code`) in print mode with its stream-json output
 * (docs/harnesses.md, "Claude Code"). One invocation is one turn; a follow-up resumes the session
 * the stream's `system/init` named, from the transcript Claude Code keeps under
 * `<home>/.claude/projects/`, so it runs in the same workspace and home.
 */
export const claudeHarness: Harness = {
  type: 'claude',
  program: 'claude',
  package: { name: '@anthropic-ai/claude-code', version: '2.1.332' },
  apiKeyVariable: 'ANTHROPIC_API_KEY',
  endpointVariable: 'ANTHROPIC_BASE_URL',
  authSecretField: 'claude_auth_secret_name',
  invocation: claudeInvocation,
  parser: claudeStreamParser,
};

/**
 * The environment beyond HOME, the key and the endpoint. Each variable is one Claude Code reads:
 * - the four switches keep it to the model endpoint alone (without them it preconnects with
 *   `HEAD /api/hello` and resolves hosts for its feature flags, error reports and updates);
 * - `IS_SANDBOX`: as root it refuses `--dangerously-skip-permissions` without it;
 * - retries and timeouts bound a dead endpoint (measured: refused or garbage ends in a few
 *   seconds, one that never answers in about 50 s, one that stalls inside a stream in about 90 s).
 *   `API_TIMEOUT_MS` is the wait for response headers, which a streamed answer sends at once (the
 *   model's time is in the body); the byte watchdog is the longest silence inside a stream (the
 *   stream watchdog's own floor is 5 minutes, the byte watchdog's 10 s, so it is the one to set);
 * - `TMPDIR`: it keeps per-session scratch (`claude-<uid>/`, `cc-socks/`) there, creating it, so
 *   the run's state stays in the run's home rather than the host's /tmp.
 */
const claudeEnvironment = (home: string): Record<string, string> => ({
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  IS_SANDBOX: '1',
  CLAUDE_CODE_MAX_RETRIES: '2',
  API_TIMEOUT_MS: '15000',
  CLAUDE_BYTE_STREAM_IDLE_TIMEOUT_MS: '60000',
  TMPDIR: join(home, 'tmp'),
});

/** Where the harness's own files go: under the run's home, apart from Claude Code's `.claude/`. */
const filesDirectory = (home: string): string => join(home, '.agentrun');

function claudeInvocation(turn: HarnessTurn): Invocation {
  const files: Invocation['files'] = [];
  const args = [
    '--print',
    '--output-format',
    'stream-json',
    // stream-json in print mode requires it.
    '--verbose',
    '--dangerously-skip-permissions',
    // Only the run's own home's settings: a workspace's `.claude/settings.json` can set `env`, which
    // Claude Code applies over its own environment (the endpoint, the key's destination, telemetry).
    '--setting-sources',
    'user',
    // Only the run's MCP servers: not a workspace's `.mcp.json`, not the home's.
    '--strict-mcp-config',
  ];
  const servers = mcpConfig(turn.mcpServers);
  if (Object.keys(servers).length > 0) {
    const path = join(filesDirectory(turn.home), 'claude-mcp.json');
    files.push({ path, content: `${JSON.stringify({ mcpServers: servers }, null, 2)}\n` });
    args.push('--mcp-config', path);
  }
  if (turn.instructions !== undefined && turn.instructions !== '') {
    // Appended to Claude Code's own system prompt, which carries its tools' guidance and the
    // environment; from a file, so a long base prompt meets no argument-length limit.
    const path = join(filesDirectory(turn.home), 'claude-instructions.md');
    files.push({ path, content: turn.instructions });
    args.push('--append-system-prompt-file', path);
  }
  if (turn.model !== undefined && turn.model !== '') args.push('--model', turn.model);
  // Claude Code's levels are low, medium, high, xhigh, max; another value it ignores with a warning.
  if (turn.reasoningLevel !== undefined && turn.reasoningLevel !== '') args.push('--effort', turn.reasoningLevel);
  if (turn.resume !== undefined) args.push('--resume', turn.resume);
  // After `--`, a prompt beginning with `-` is not read as an option.
  args.push('--', turn.prompt);
  return { args, env: claudeEnvironment(turn.home), files };
}

type ClaudeMcpServer =
  | { type: 'stdio'; command: string; args: string[]; env: Record<string, string> }
  | { type: 'http'; url: string; headers: Record<string, string> };

/**
 * The run's MCP servers in Claude Code's `--mcp-config` form. A URL server is streamable HTTP,
 * the transport current MCP servers speak; one with neither command nor URL is left out.
 */
function mcpConfig(servers: HarnessTurn['mcpServers']): Record<string, ClaudeMcpServer> {
  const config: Record<string, ClaudeMcpServer> = {};
  for (const [name, server] of Object.entries(servers)) {
    const entry = mcpEntry(server);
    if (entry) config[name] = entry;
  }
  return config;
}

function mcpEntry(server: McpServer): ClaudeMcpServer | undefined {
  if (server.command !== undefined && server.command !== '') {
    return { type: 'stdio', command: server.command, args: [...(server.args ?? [])], env: { ...server.env } };
  }
  if (server.url !== undefined && server.url !== '') return { type: 'http', url: server.url, headers: { ...server.headers } };
  return undefined;
}
