import type { HarnessTurn, McpServer } from '../harness.js';

/**
 * `<home>/.gemini/settings.json`, the user settings of Gemini CLI (docs/harnesses.md, "Gemini
 * CLI"): API-key auth, everything that would reach past the model endpoint off, retries bounded,
 * and the run's MCP servers and reasoning level.
 */
export function geminiSettings(turn: HarnessTurn): Record<string, unknown> {
  const thinking = thinkingOverrides(turn.reasoningLevel, turn.model);
  return {
    security: {
      // GEMINI_API_KEY alone is not enough: with GOOGLE_GEMINI_BASE_URL set too, the CLI takes the
      // endpoint for a "gateway" and ends at once ("Invalid auth method selected.").
      auth: { selectedType: 'gemini-api-key' },
      // The workspace is trusted: in an untrusted one the CLI asks before each tool call (nobody
      // answers, headless) and starts no stdio MCP server. A trusted workspace's own
      // `.gemini/settings.json` is read too, after these.
      folderTrust: { enabled: false },
    },
    general: {
      enableAutoUpdate: false,
      enableAutoUpdateNotification: false,
      checkpointing: { enabled: false },
      // Two tries of each agent request (the retry waits ~5 s): an unreachable or failing endpoint
      // ends the turn in seconds, not after ten tries with backoff of up to 30 s each.
      maxAttempts: 2,
    },
    // Usage statistics go to play.googleapis.com, telemetry to an OTLP or Google Cloud exporter.
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    ide: { enabled: false },
    // A `.env` in the workspace would otherwise be loaded into the CLI's own environment (a proxy,
    // another endpoint, Vertex AI switches): the run's environment is the executor's alone.
    advanced: { ignoreLocalEnv: true },
    // The CLI's default, kept: the check would be one more model call after each answer.
    model: { skipNextSpeakerCheck: true },
    ...(thinking.length > 0 ? { modelConfigs: { customOverrides: thinking } } : {}),
    mcpServers: mcpServers(turn.mcpServers),
  };
}

/** How long Gemini CLI waits on an MCP server, for connecting, listing its tools and each call (its own default: 10 minutes). */
const MCP_TIMEOUT_MS = 60_000;

/**
 * The run's MCP servers as Gemini CLI's `mcpServers`. A `url` server is streamable HTTP, with the
 * CLI falling back to SSE where the server answers 404.
 */
function mcpServers(servers: HarnessTurn['mcpServers']): Record<string, unknown> {
  const entries = Object.entries(servers).flatMap(([name, server]) => {
    const entry = mcpServer(server);
    return entry ? [[name, entry] as const] : [];
  });
  return Object.fromEntries(entries);
}

function mcpServer(server: McpServer): Record<string, unknown> | undefined {
  if (server.url !== undefined) {
    return {
      url: literal(server.url),
      ...(server.headers ? { headers: mapValues(server.headers, expandedTwice) } : {}),
      timeout: MCP_TIMEOUT_MS,
    };
  }
  if (server.command !== undefined) {
    return {
      command: literal(server.command),
      args: (server.args ?? []).map(literal),
      ...(server.env ? { env: mapValues(server.env, expandedTwice) } : {}),
      timeout: MCP_TIMEOUT_MS,
    };
  }
  return undefined;
}

const mapValues = (record: Readonly<Record<string, string>>, f: (value: string) => string): Record<string, string> =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, f(value)]));

/**
 * Gemini CLI replaces `$NAME`, `${NAME}` and `${NAME:-default}` in every string of its settings
 * with its environment's variables, GEMINI_API_KEY among them, and has no escape: an MCP server's
 * arguments or headers could carry the run's API key. A `$` is written as `${<unset>:-$}`, which
 * the (single-pass) expansion turns back into `$`, so the run's values reach the server as given.
 */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the CLI's `${NAME:-default}`, not a template
const DOLLAR = '${AGENTRUN_LITERAL_DOLLAR_:-$}';
const literal = (value: string): string => value.replaceAll('$', DOLLAR);

/**
 * MCP `env` values and `headers` are expanded once more when the server is started (dotenv-expand,
 * over the CLI's environment less its secrets), where `\$` is a literal `$`.
 */
const expandedTwice = (value: string): string => value.replaceAll('$', `\\${DOLLAR}`);

/** Gemini 3 models take a thinking level, Gemini 2.5 models a thinking budget (tokens). */
const THINKING: Readonly<Record<string, { level: string; budget: number }>> = {
  minimal: { level: 'MINIMAL', budget: 512 },
  low: { level: 'LOW', budget: 2048 },
  medium: { level: 'MEDIUM', budget: 8192 },
  high: { level: 'HIGH', budget: 24_576 },
};

/**
 * `modelConfigs.customOverrides` setting the thinking of the agent's model: by the CLI's own model
 * families (every Gemini 3 model extends `chat-base-3`, every 2.5 one `chat-base-2.5`), and for a
 * model the CLI does not know, by its name. A level outside THINKING is not passed on.
 */
function thinkingOverrides(level: string | undefined, model: string | undefined): unknown[] {
  const key = level?.trim().toLowerCase() ?? '';
  const thinking = Object.hasOwn(THINKING, key) ? THINKING[key] : undefined;
  if (!thinking) return [];
  const byLevel = { thinkingLevel: thinking.level };
  const byBudget = { thinkingBudget: thinking.budget };
  const override = (match: string, thinkingConfig: object) => ({
    match: { model: match },
    modelConfig: { generateContentConfig: { thinkingConfig } },
  });
  return [
    override('chat-base-3', byLevel),
    override('chat-base-2.5', byBudget),
    ...(model === undefined ? [] : [override(model, /^gemini-(1|2)(\.|-)/.test(model) ? byBudget : byLevel)]),
  ];
}
