import { chown, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  authSecretSourceFor,
  type ExecutionContext,
  type ExecutionInput,
  type ExecutionOutcome,
  HARNESS_AUTH_FIELDS,
} from '@agentrun/core';
import type { Harness, HarnessTurn, McpServer } from '@agentrun/harnesses';
import { agentOutput } from './agent-output.js';
import { pipeAgent } from './agent-pipes.js';
import { type HarnessLines, harnessLines, type UsageTotals, usageBefore } from './harness-lines.js';
import type { InstalledHarness } from './installed-harnesses.js';
import type { OutputBudget } from './output-budget.js';
import type { RunStops } from './run-stops.js';
import { stoppedOutcome } from './run-stops.js';
import type { ParkedSession } from './session-parking.js';
import { type AgentPlan, type AgentProcess, spawnAgent } from './spawn-agent.js';
import { runInstructions, type Workspace, workspacePaths } from './workspace.js';

/** The longest line of a CLI's stream read whole: a tool's result is one JSON line, and may be large. */
const MAX_STREAM_LINE = 4 * 2 ** 20;
/** A replayed conversation (a harness's `followups: 'replay'`) keeps its last lines, each cut to this. */
const MAX_HISTORY = 200;
const MAX_HISTORY_LINE = 10_000;
/** The longest final text a run's outcome carries. */
const MAX_RESULT = 10_000;

/** What a harness execution leaves: its outcome, and the session a follow-up may continue. */
export interface HarnessRunResult {
  outcome: ExecutionOutcome;
  session?: ParkedSession;
}

/**
 * Where and how a CLI's turns run: spawned as the process executor's agent is (`spawnedHarness`),
 * or another executor's way (a container's `exec`: docs/executors.md, "The container executor").
 */
export interface HarnessRunner {
  /** The agent's user, given the home and the files written for a turn; none: they stay the server's. */
  user: { uid: number; gid: number } | undefined;
  maxOutputBytes: number;
  onError: (error: unknown) => void;
  /** The run's home for the CLI, on this host: made here, the turn's files written into it. */
  home: string;
  /** The workspace and the home as the CLI sees them: the paths its command line and variables name. */
  seen: { workspace: string; home: string };
  /** The model endpoint the server names for this CLI (docs/harnesses.md, "The model endpoint"), if any. */
  endpoint: string | undefined;
  /** Starts the CLI with `args` in the workspace, with `env`, as the agent is started. */
  launch(args: string[], env: Record<string, string>): Promise<AgentProcess>;
}

/** The process executor's: the CLI spawned as its agent is, in the same containment, user and sandbox, its home beside the workspace. */
export function spawnedHarness(plan: AgentPlan, workspace: Workspace, cli: InstalledHarness): HarnessRunner {
  const { config } = plan;
  const home = join(workspace.area.dir, 'home');
  return {
    user: config.user,
    maxOutputBytes: config.maxOutputBytes,
    onError: config.onError,
    home,
    seen: { workspace: workspace.dir, home },
    endpoint: config.endpoints[cli.harness.type] ?? process.env[cli.harness.endpointVariable],
    launch: (args, env) =>
      spawnAgent(plan, { command: cli.path, args, shell: false }, { ...workspacePaths(workspace), home, readOnly: cli.readOnly }, env),
  };
}

export interface HarnessRunParts {
  runner: HarnessRunner;
  harness: Harness;
  input: ExecutionInput;
  context: ExecutionContext;
  workspace: Workspace;
  env: Record<string, string>;
  stops: RunStops;
  budget: OutputBudget;
  /** The session a follow-up continues, kept since the run's last execution here. */
  parked: ParkedSession | undefined;
}

/**
 * A run on an agent CLI (docs/harnesses.md): the first turn (the prompt, or the follow-ups a kept
 * session has not answered), then one turn per follow-up received meanwhile, each continuing the
 * CLI's session, in the run's workspace with a home of its own, under the run's isolation.
 */
export async function runHarness(parts: HarnessRunParts): Promise<HarnessRunResult> {
  const { input, context, workspace, runner, harness, parked } = parts;
  const key = apiKey(parts);
  if ('outcome' in key) return { outcome: key.outcome };
  await mkdir(runner.home, { recursive: true, mode: 0o700 });
  if (runner.user) await chown(runner.home, runner.user.uid, runner.user.gid);

  const answered = new Set(parked?.answered ?? []);
  const unanswered = input.followups.filter((f) => !answered.has(f.id));
  for (const f of input.followups) answered.add(f.id);
  let sessionId = parked?.sessionId;
  // Queued again with nothing new (a retry of an execution that answered all): the session waits on.
  if (parked !== undefined && unanswered.length === 0)
    return { outcome: { status: 'succeeded', message: 'Nothing new to answer' }, session: parked };
  // A kept session hears what it has not; a new one, the whole conversation so far.
  let prompt =
    parked !== undefined
      ? unanswered.map((f) => f.message).join('\n\n')
      : unanswered.length === 0
        ? input.run.prompt
        : conversationSoFar(
            input.run.prompt,
            unanswered.map((f) => f.message),
          );
  const pending: string[] = [];
  const listen = () =>
    context.onFollowup((f) => {
      if (answered.has(f.id)) return;
      answered.add(f.id);
      pending.push(f.message);
    });
  let unsubscribe = listen();
  let usage = usageBefore(input.run.request_usage as Record<string, unknown> | undefined);
  // A CLI that counts its whole session's usage (Codex) adds to the run's usage as it was when the session began.
  const usageBase = parked?.usageBase ?? usage;
  const history = [...(parked?.history ?? [])];
  try {
    for (;;) {
      const before = harness.usageCounts === 'session' ? usageBase : usage;
      // A CLI that cannot resume, or one that told no session to resume, is told the conversation instead.
      const replay = history.length > 0 && (harness.followups === 'replay' || sessionId === undefined);
      const told = replay ? replayed(history, prompt) : prompt;
      const turn = await runTurn(parts, key.env, harnessTurn(parts, told, replay ? undefined : sessionId), before);
      sessionId = turn.lines.sessionId ?? sessionId;
      usage = turn.lines.usage ?? usage;
      history.push(
        ...[`User: ${prompt}`, ...turn.lines.tools.map((t) => `You called ${t}`), `You: ${turn.outcome.message ?? ''}`].map((line) =>
          line.slice(0, MAX_HISTORY_LINE),
        ),
      );
      history.splice(0, Math.max(0, history.length - MAX_HISTORY));
      if (turn.outcome.status !== 'succeeded') return { outcome: turn.outcome };
      // From here a follow-up is not this execution's: the worker queues the run again with it.
      unsubscribe();
      if (pending.length === 0) {
        return {
          outcome: turn.outcome,
          ...(sessionId !== undefined ? { session: { workspace, sessionId, answered, usageBase, history } } : {}),
        };
      }
      prompt = pending.splice(0).join('\n\n');
      unsubscribe = listen();
    }
  } finally {
    unsubscribe();
  }

  function harnessTurn(p: HarnessRunParts, text: string, resume: string | undefined): HarnessTurn {
    const agentConfig = p.input.run.agent_config ?? {};
    const instructions = runInstructions(p.input.run);
    const model = agentConfig.harness?.model_id ?? agentConfig.model_id;
    const reasoning = agentConfig.harness?.reasoning_level;
    const endpoint = p.runner.endpoint;
    return {
      workspace: p.runner.seen.workspace,
      home: p.runner.seen.home,
      prompt: text,
      mcpServers: mcpServersOf(agentConfig.mcp_servers),
      ...(instructions !== undefined ? { instructions } : {}),
      ...(model !== undefined ? { model } : {}),
      ...(reasoning !== undefined ? { reasoningLevel: reasoning } : {}),
      ...(resume !== undefined ? { resume } : {}),
      ...(endpoint ? { endpoint } : {}),
    };
  }
}

/** One invocation of the CLI, to its end. */
async function runTurn(
  parts: HarnessRunParts,
  keyEnv: Record<string, string>,
  turn: HarnessTurn,
  usage: UsageTotals,
): Promise<{ outcome: ExecutionOutcome; lines: HarnessLines }> {
  const { runner, context, workspace, stops, budget, harness } = parts;
  const lines = harnessLines(harness.parser(), usage, harness.program);
  if (stops.stop) return { outcome: stoppedOutcome(stops.stop), lines };
  const invocation = harness.invocation(turn);
  const files = invocation.files.map((f) => ({ path: onHost(runner, workspace, f.path), content: f.content }));
  for (const file of files) {
    await mkdir(dirname(file.path), { recursive: true, mode: 0o700 });
    await writeFile(file.path, file.content, { mode: 0o600 });
    if (runner.user) await chown(file.path, runner.user.uid, runner.user.gid);
  }
  if (runner.user)
    await chownTree(
      runner.home,
      dirname(runner.home),
      runner.user,
      files.map((f) => f.path),
    );
  const env: Record<string, string> = { ...parts.env, ...invocation.env, HOME: turn.home, ...keyEnv };
  // The endpoint is the server's, never the run's (an environment's variable): docs/harnesses.md, "The model endpoint".
  if (turn.endpoint) env[harness.endpointVariable] = turn.endpoint;
  else delete env[harness.endpointVariable];
  const agent = await runner.launch(invocation.args, env);
  const child = agent.child;
  // The CLIs read no follow-ups on stdin (a follow-up is a turn of its own), and some wait for it to close.
  child.stdin?.on('error', () => {});
  child.stdin?.end();
  const output = agentOutput(context, {
    maxOutputBytes: runner.maxOutputBytes,
    onError: runner.onError,
    backpressure: { pause: () => child.stdout?.pause(), resume: () => child.stdout?.resume() },
    budget,
    workspace: workspace.dir,
    decoder: lines.decoder,
    maxLine: MAX_STREAM_LINE,
  });
  const piped = pipeAgent(agent, output, stops);
  try {
    const { code, stderrTail: tail } = await piped.settle();
    if (stops.stop) return { outcome: stoppedOutcome(stops.stop), lines };
    if (code === 126 || code === 127) throw new Error(`${harness.program} could not start (exit ${code})${tail ? `: ${tail}` : ''}`);
    const told = lines.outcome;
    if (told?.status === 'succeeded' && told.message !== undefined)
      return { outcome: { ...told, message: told.message.slice(0, MAX_RESULT) }, lines };
    if (told) return { outcome: told, lines };
    return {
      outcome: {
        status: 'failed',
        message: `${harness.program} exited with ${code === null ? 'a signal' : `code ${code}`} before its turn ended${tail ? `: ${tail}` : ''}`,
        error_code: 'agent_exit',
      },
      lines,
    };
  } finally {
    piped.release();
  }
}

/**
 * The CLI's API key, as the variable it reads (docs/harnesses.md, "Authentication"): the team
 * secret the run's config names for this harness, else the server's own variable where the
 * executor passes it (`env.allow`). Neither: the run fails, saying how to give one.
 */
function apiKey(parts: HarnessRunParts): { env: Record<string, string> } | { outcome: ExecutionOutcome } {
  const { harness } = parts;
  const source = authSecretSourceFor(parts.input.run.agent_config ?? {}, harness.type, HARNESS_AUTH_FIELDS);
  const secret = source ? parts.input.harnessAuth?.[source] : undefined;
  if (secret) return { env: { [harness.apiKeyVariable]: secret.reveal() } };
  if (parts.env[harness.apiKeyVariable]) return { env: {} };
  const field = harness.authSecretField ? ` (or config.harness_auth_secrets.${harness.authSecretField})` : '';
  return {
    outcome: {
      status: 'failed',
      message: `The ${harness.type} harness needs an API key: name a team secret holding it in config.harness.auth_secret_name${field}, or have the server pass ${harness.apiKeyVariable}`,
      error_code: 'auth_secret_unavailable',
    },
  };
}

/** A replaying CLI's first message of a follow-up's new session: the conversation so far, then the message. */
function replayed(history: readonly string[], message: string): string {
  return [
    'This continues an earlier conversation in this workspace; what you did then is in its files. The conversation so far:',
    ...history,
    'The new message:',
    message,
  ].join('\n\n');
}

/** A new session's first message when the run already had follow-ups (its kept session gone). */
function conversationSoFar(prompt: string, followups: readonly string[]): string {
  return [prompt, 'Messages since, oldest first:', ...followups.map((m, i) => `${i + 1}. ${m}`)].join('\n\n');
}

/** `config.mcp_servers` as a CLI takes them: a `warp_id` names a server agentrun cannot reach, so it is left out. */
function mcpServersOf(servers: Readonly<Record<string, Record<string, unknown>>> | undefined): Record<string, McpServer> {
  const out: Record<string, McpServer> = {};
  for (const [name, server] of Object.entries(servers ?? {})) {
    if (server.warp_id !== undefined) continue;
    out[name] = server as McpServer;
  }
  return out;
}

/** Where a file a turn names (under the home or the workspace, as the CLI sees them) is on this host. */
function onHost(runner: HarnessRunner, workspace: Workspace, path: string): string {
  for (const [seen, here] of [
    [runner.seen.home, runner.home],
    [runner.seen.workspace, workspace.dir],
  ] as const) {
    if (path === seen || path.startsWith(`${seen}/`)) return here + path.slice(seen.length);
  }
  throw new Error(`A harness wrote outside the run's home and workspace: ${path}`);
}

/** The home and the files written for a turn given to the agent's user, with the directories made for them. */
async function chownTree(home: string, top: string, user: { uid: number; gid: number }, files: readonly string[]): Promise<void> {
  const dirs = new Set<string>();
  for (const file of files) for (let d = dirname(file); d.startsWith(home) && d !== top; d = dirname(d)) dirs.add(d);
  for (const dir of dirs) await chown(dir, user.uid, user.gid);
}
