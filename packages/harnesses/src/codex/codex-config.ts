import type { HarnessTurn, McpServer } from '../harness.js';

/** The model provider the config defines: Codex's built-in `openai` provider ignores `OPENAI_BASE_URL` and tries WebSockets first. */
const CODEX_PROVIDER = 'agentrun';

/** Where the model is when the server names no endpoint. */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** The reasoning efforts Codex 0.171's model catalog names; Codex itself passes any string through to the model. */
const CODEX_REASONING_EFFORTS = ['minimal', 'low', 'medium', 'high', 'xhigh', 'max', 'ultra'] as const;

/**
 * Retries stay few and bounded: an unreachable or misbehaving endpoint ends the turn failed in
 * seconds. The idle bound applies only once the response has started; a silent reasoning model
 * can stream nothing for a long while, so it is generous.
 */
const PROVIDER_LIMITS = { request_max_retries: 2, stream_max_retries: 2, stream_idle_timeout_ms: 120_000 } as const;

/**
 * Features whose look-ups leave the machine or whose retries never end. Measured on 0.171:
 * `plugins` fetches from github.com, api.github.com and chatgpt.com at start; the rest are
 * ChatGPT-account features that have no place in a run; `unbounded_connection_retries` keeps
 * reconnecting forever when the endpoint refuses connections.
 */
const FEATURES_OFF = ['unbounded_connection_retries', 'plugins', 'apps', 'remote_plugin', 'tool_suggest'] as const;

/** The characters Codex allows in an MCP server's name. */
const MCP_NAME = /^[a-zA-Z0-9_:@/.-]+$/;

/** A surrogate without its pair: TOML (UTF-8) cannot hold it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** A TOML basic string: JSON's escapes are TOML's, once lone surrogates are replaced and DEL escaped. */
export function tomlString(value: string): string {
  return JSON.stringify(value.replace(LONE_SURROGATE, '\ufffd')).replace(/\u007f/g, '\\u007f');
}

const tomlArray = (values: readonly string[]): string => `[${values.map(tomlString).join(', ')}]`;

const tomlInlineTable = (entries: Readonly<Record<string, string>>): string =>
  `{ ${Object.entries(entries)
    .map(([key, value]) => `${tomlString(key)} = ${tomlString(value)}`)
    .join(', ')} }`;

/** The reasoning effort Codex gets, if `level` is one it knows (any case). */
export function reasoningEffort(level: string | undefined): string | undefined {
  const effort = level?.trim().toLowerCase();
  return (CODEX_REASONING_EFFORTS as readonly string[]).includes(effort ?? '') ? effort : undefined;
}

/**
 * MCP server names Codex accepts: other characters become `_`, and a name already taken gets a
 * number. Codex refuses to start a server whose name does not match, and says so only in its log.
 */
export function mcpServerNames(names: readonly string[]): Map<string, string> {
  const taken = new Set<string>();
  const result = new Map<string, string>();
  for (const name of names) {
    const base = MCP_NAME.test(name) ? name : name.replace(/[^a-zA-Z0-9_:@/.-]/g, '_') || 'mcp';
    let unique = base;
    for (let n = 2; taken.has(unique); n++) unique = `${base}-${n}`;
    taken.add(unique);
    result.set(name, unique);
  }
  return result;
}

/** One `[mcp_servers.NAME]` table: a command (stdio) or a URL (streamable HTTP); neither gives none. */
function mcpServerTable(name: string, server: McpServer): string[] {
  const lines = [`[mcp_servers.${tomlString(name)}]`];
  if (server.command !== undefined) {
    lines.push(`command = ${tomlString(server.command)}`);
    if (server.args?.length) lines.push(`args = ${tomlArray(server.args)}`);
    if (server.env && Object.keys(server.env).length > 0) lines.push(`env = ${tomlInlineTable(server.env)}`);
  } else if (server.url !== undefined) {
    lines.push(`url = ${tomlString(server.url)}`);
    if (server.headers && Object.keys(server.headers).length > 0) lines.push(`http_headers = ${tomlInlineTable(server.headers)}`);
  } else {
    return [];
  }
  return [...lines, ''];
}

/**
 * `$CODEX_HOME/config.toml` for one turn: the model endpoint as a provider of its own, the
 * instructions, the reasoning effort, the MCP servers, and everything that would reach beyond
 * the model endpoint turned off. The API key is named, never written: Codex reads it from
 * `OPENAI_API_KEY`, and the agent's commands do not inherit it.
 */
export function codexConfig(turn: HarnessTurn): string {
  const top = [
    '# Written by agentrun for this run; rewritten at every turn.',
    `model_provider = ${tomlString(CODEX_PROVIDER)}`,
    'check_for_update_on_startup = false',
  ];
  if (turn.instructions) top.push(`developer_instructions = ${tomlString(turn.instructions)}`);
  const effort = reasoningEffort(turn.reasoningLevel);
  if (effort) top.push(`model_reasoning_effort = ${tomlString(effort)}`);
  const provider = [
    `[model_providers.${CODEX_PROVIDER}]`,
    `name = ${tomlString(CODEX_PROVIDER)}`,
    `base_url = ${tomlString(turn.endpoint ?? OPENAI_BASE_URL)}`,
    'env_key = "OPENAI_API_KEY"',
    'wire_api = "responses"',
    ...Object.entries(PROVIDER_LIMITS).map(([key, value]) => `${key} = ${value}`),
  ];
  const names = mcpServerNames(Object.keys(turn.mcpServers));
  const mcp = Object.entries(turn.mcpServers).flatMap(([name, server]) => mcpServerTable(names.get(name) ?? name, server));
  return [
    ...top,
    '',
    ...provider,
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[feedback]',
    'enabled = false',
    '',
    '[otel]',
    'exporter = "none"',
    '',
    '[shell_environment_policy]',
    'exclude = ["OPENAI_API_KEY"]',
    '',
    '[features]',
    ...FEATURES_OFF.map((feature) => `${feature} = false`),
    '',
    ...mcp,
  ].join('\n');
}
