import * as v from 'valibot';
import { jsonMap, jsonObject } from './json.js';

/** Limits on configuration values; generous, but bounded so no caller can store unbounded data. */
export const CONFIG_LIMITS = {
  shortText: 256,
  basePrompt: 100_000,
  mcpServers: 32,
  mcpArgs: 64,
  mcpMapEntries: 64,
} as const;

const shortText = v.pipe(v.string(), v.maxLength(CONFIG_LIMITS.shortText));
const stringMap = v.pipe(
  jsonMap(v.pipe(v.string(), v.maxLength(CONFIG_LIMITS.shortText)), v.pipe(v.string(), v.maxLength(8192))),
  v.check((m) => Object.keys(m).length <= CONFIG_LIMITS.mcpMapEntries, `at most ${CONFIG_LIMITS.mcpMapEntries} entries`),
);

/**
 * An MCP server: exactly one of `warp_id` (a shared server), `command` (stdio, with `args` and
 * `env`) or `url` (SSE/HTTP, with `headers`).
 */
export const MCPServerConfigSchema = v.pipe(
  jsonObject({
    warp_id: v.optional(shortText),
    command: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(4096))),
    args: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(4096))), v.maxLength(CONFIG_LIMITS.mcpArgs))),
    env: v.optional(stringMap),
    url: v.optional(v.pipe(v.string(), v.url('must be a URL'), v.maxLength(2048))),
    headers: v.optional(stringMap),
  }),
  v.check(
    (c) => [c.warp_id, c.command, c.url].filter((x) => x !== undefined).length === 1,
    'exactly one of warp_id, command, url is required',
  ),
  v.check((c) => c.command !== undefined || (c.args === undefined && c.env === undefined), 'args and env go with command'),
  v.check((c) => c.url !== undefined || c.headers === undefined, 'headers go with url'),
);
export type MCPServerConfig = v.InferOutput<typeof MCPServerConfigSchema>;

/** The configuration of a run; the resolved form is echoed back as `agent_config`. */
export const AmbientAgentConfigSchema = jsonObject({
  name: v.optional(shortText),
  model_id: v.optional(shortText),
  base_prompt: v.optional(v.pipe(v.string(), v.maxLength(CONFIG_LIMITS.basePrompt))),
  environment_id: v.optional(shortText),
  skill_spec: v.optional(shortText),
  mcp_servers: v.optional(
    v.pipe(
      jsonMap(v.pipe(v.string(), v.minLength(1), v.maxLength(128)), MCPServerConfigSchema),
      v.check((m) => Object.keys(m).length <= CONFIG_LIMITS.mcpServers, `at most ${CONFIG_LIMITS.mcpServers} servers`),
    ),
  ),
  computer_use_enabled: v.optional(v.boolean()),
  idle_timeout_minutes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(60))),
  /** Accepted for client compatibility; agentrun routes work through its own executor. */
  worker_host: v.optional(shortText),
});
export type AmbientAgentConfig = v.InferOutput<typeof AmbientAgentConfigSchema>;
