import * as v from 'valibot';
import { maxChars } from './char-limit.js';
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
  v.maxEntries(CONFIG_LIMITS.mcpMapEntries, `at most ${CONFIG_LIMITS.mcpMapEntries} entries`),
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
    // Length first: a URL check of megabytes of text would cost what the limit exists to avoid.
    url: v.optional(v.pipe(v.string(), v.maxLength(2048), v.url('must be a URL'))),
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

/**
 * `config.harness`: the agent program (`oz`, the server's default, or one of `HARNESS_TYPES`, which
 * a run's create checks against what the server runs: harness/harness-check.ts), with the
 * optional settings both published clients send. Every member is
 * optional, `type` too, as in the Python client's `Harness` (a `TypedDict` with `total=False`):
 * no `type` means the default harness, `oz` (docs/run-api.md).
 */
export const HarnessSchema = jsonObject({
  type: v.optional(
    v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9_.-]{0,63}$/, 'must be a harness name such as oz, claude, gemini or codex')),
  ),
  auth_secret_name: v.optional(shortText),
  model_id: v.optional(shortText),
  reasoning_level: v.optional(shortText),
});

/** The configuration of a run; the resolved form is echoed back as `agent_config`. */
export const AmbientAgentConfigSchema = jsonObject({
  name: v.optional(shortText),
  model_id: v.optional(shortText),
  base_prompt: v.optional(v.pipe(v.string(), maxChars(CONFIG_LIMITS.basePrompt))),
  environment_id: v.optional(shortText),
  skill_spec: v.optional(shortText),
  mcp_servers: v.optional(
    v.pipe(
      jsonMap(v.pipe(v.string(), v.minLength(1), v.maxLength(128)), MCPServerConfigSchema),
      v.maxEntries(CONFIG_LIMITS.mcpServers, `at most ${CONFIG_LIMITS.mcpServers} servers`),
    ),
  ),
  computer_use_enabled: v.optional(v.boolean()),
  idle_timeout_minutes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(60))),
  /** Accepted for client compatibility; agentrun's own workers run every run (docs/run-api.md). */
  worker_host: v.optional(shortText),
  /** Which agent program runs the run: a harness the server runs (docs/harnesses.md). */
  harness: v.optional(HarnessSchema),
  // The Python client's further settings: validated, stored and echoed in `agent_config`; what the
  // process executor makes of each, and why some do nothing, is in docs/harnesses.md and docs/run-api.md.
  harness_auth_secrets: v.optional(
    jsonObject({ claude_auth_secret_name: v.optional(shortText), codex_auth_secret_name: v.optional(shortText) }),
  ),
  credential_strategy: v.optional(v.nullable(v.picklist(['CREATOR', 'EXECUTOR'], 'must be CREATOR or EXECUTOR'))),
  inference_providers: v.optional(
    jsonObject({
      aws: v.optional(jsonObject({ disabled: v.optional(v.boolean()), region: v.optional(shortText), role_arn: v.optional(shortText) })),
    }),
  ),
  memory_stores: v.optional(
    v.pipe(
      v.array(
        jsonObject({
          access: v.picklist(['read_write', 'read_only'], 'must be read_write or read_only'),
          instructions: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(CONFIG_LIMITS.basePrompt)),
          uid: shortText,
        }),
      ),
      v.maxLength(CONFIG_LIMITS.mcpServers),
    ),
  ),
  runner_id: v.optional(shortText),
  session_sharing: v.optional(jsonObject({ public_access: v.optional(v.picklist(['VIEWER', 'EDITOR'], 'must be VIEWER or EDITOR')) })),
  skills: v.optional(v.pipe(v.array(shortText), v.maxLength(CONFIG_LIMITS.mcpServers))),
});
export type AmbientAgentConfig = v.InferOutput<typeof AmbientAgentConfigSchema>;
