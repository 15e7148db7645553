import { HARNESS_TYPES as ALL_HARNESSES, type HarnessType as AnyHarness } from '@agentrun/core';

/**
 * A harness knows one agent CLI (docs/harnesses.md): how to start it in a run's workspace, with
 * a home of the run's own, and how to read its native stream into agentrun's transcript. A
 * harness is data and pure functions: the executor (`@agentrun/executor-process`) writes the
 * files, spawns the program under the run's isolation and feeds the parser each stdout line.
 */
export interface Harness {
  /** The name a run's `config.harness.type` gives: `claude`, `codex`, `gemini`. */
  readonly type: HarnessType;
  /** The program looked for on `PATH` when no path is configured. */
  readonly program: string;
  /** The npm package it comes from, and the version the tests drive (docs/harnesses.md). */
  readonly package: { name: string; version: string };
  /** The variable the CLI reads its API key from (`ANTHROPIC_API_KEY`, …): the run's auth secret goes there and nowhere else. */
  readonly apiKeyVariable: string;
  /** The variable the CLI reads its model endpoint from (`ANTHROPIC_BASE_URL`, …): set by the server, never by the run. */
  readonly endpointVariable: string;
  /** The member of `config.harness_auth_secrets` naming this harness's secret, where the published clients have one. */
  readonly authSecretField?: 'claude_auth_secret_name' | 'codex_auth_secret_name';
  /**
   * What the stream's `usage` counts: that invocation's own calls (default), or the whole session's,
   * earlier turns included (Codex): the executor sums the one and takes the other as it is.
   */
  readonly usageCounts?: 'invocation' | 'session';
  /**
   * How a follow-up continues the run (docs/harnesses.md, "Follow-ups"): `resume` the CLI's session
   * (default), or `replay`: a new session whose first message tells the conversation so far, for a
   * CLI whose resumed sessions its model API refuses.
   */
  readonly followups?: 'resume' | 'replay';
  /** How to start one turn: the first (`resume` absent) or a follow-up continuing the session `resume`. */
  invocation(turn: HarnessTurn): Invocation;
  /** A fresh reader of one invocation's stdout. */
  parser(): HarnessParser;
}

/** The harnesses that are agent CLIs: every one core knows but `command` (the process executor's own protocol). */
export type HarnessType = Exclude<AnyHarness, 'command'>;
export const HARNESS_TYPES: readonly HarnessType[] = ALL_HARNESSES.filter((t): t is HarnessType => t !== 'command');

/** An MCP server as a run's `config.mcp_servers` gives it (core's `MCPServerConfig`, `warp_id` aside). */
export interface McpServer {
  command?: string;
  args?: readonly string[];
  env?: Readonly<Record<string, string>>;
  url?: string;
  headers?: Readonly<Record<string, string>>;
}

/** One turn of a run, as the harness needs it. Paths are as the agent sees them (inside its sandbox, if any). */
export interface HarnessTurn {
  /** The agent's working directory. */
  workspace: string;
  /** A directory of the run's own for the CLI's state and config: `HOME`, `CODEX_HOME`, … point into it. */
  home: string;
  /** This turn's message: the prompt, or the follow-ups it answers. */
  prompt: string;
  /** The base prompt and the skill's instructions: the CLI's system or developer instructions. */
  instructions?: string;
  /** `config.harness.model_id`, else `config.model_id`. */
  model?: string;
  /** `config.harness.reasoning_level`, where the CLI has such a setting. */
  reasoningLevel?: string;
  /** `config.mcp_servers`, by name. */
  mcpServers: Readonly<Record<string, McpServer>>;
  /** The session to continue (a follow-up): the id the parser reported. */
  resume?: string;
  /** The model endpoint the server names for this CLI (its `endpointVariable`), if any. */
  endpoint?: string;
}

/** What the executor does to start one turn. */
export interface Invocation {
  /** Arguments after the program. */
  args: string[];
  /**
   * Variables set for the CLI beyond the run's clean environment (HOME and the CLI's own: telemetry
   * and auto-update off, bounded retries). The API key and the endpoint are set by the executor.
   */
  env: Record<string, string>;
  /** Files written before the start (config, settings, instructions): absolute paths under `home` or `workspace`. */
  files: { path: string; content: string }[];
}

/** Reads one invocation's stdout, a line at a time (without its newline). */
export interface HarnessParser {
  line(text: string): HarnessEvent[];
  /** stdout ended: what a partial stream still tells (a result never sent is the executor's to judge). */
  end(): HarnessEvent[];
}

/** Most characters of a tool call's input (as JSON) or a tool result's output kept in the transcript. */
export const MAX_TOOL_TEXT = 16_384;

/** What the CLI's stream tells, in agentrun's terms (docs/harnesses.md, "The transcript"). */
export type HarnessEvent =
  /** The CLI's session: continued by the next turn's `resume`. */
  | { kind: 'session'; id: string }
  /** Assistant text. */
  | { kind: 'text'; text: string }
  /** A tool the model called, with its input (bounded by the executor). */
  | { kind: 'tool_call'; call_id: string; name: string; input: unknown }
  /** The tool's result. */
  | { kind: 'tool_result'; call_id: string; name?: string; output: string; is_error?: boolean }
  /** Token counts (and cost, where the CLI gives one) so far in this invocation. */
  | { kind: 'usage'; input_tokens?: number; output_tokens?: number; cost_usd?: number }
  /** A progress note: a retry, a warning. */
  | { kind: 'status'; message: string }
  /** The turn's outcome: the final text, or why it failed. */
  | { kind: 'result'; status: 'succeeded' | 'failed'; message: string };
