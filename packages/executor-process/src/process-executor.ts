import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ExecutionContext,
  type ExecutionInput,
  type ExecutionOutcome,
  type Executor,
  type HarnessType,
  namedHarness,
} from '@agentrun/core';
import { gitSources } from '@agentrun/git-sources';
import { agentOutput } from './agent-output.js';
import { pipeAgent } from './agent-pipes.js';
import { agentEnvironment, isolatedHome } from './environment.js';
import { runHarness, spawnedHarness } from './harness-run.js';
import { harnessList, installedHarnesses, isCliType } from './installed-harnesses.js';
import { type ProcessExecutorOptions, type ResolvedOptions, resolveOptions, type WorkspaceRepositories } from './options.js';
import { type OutputBudget, outputBudget } from './output-budget.js';
import { prepareEnvironment, spawnedSetup } from './prepare-environment.js';
import { followupLine } from './protocol.js';
import { diskPlan } from './run-area.js';
import { exitOutcome, type RunStops, runStops, stoppedOutcome } from './run-stops.js';
import { type ParkedSession, sessionParking } from './session-parking.js';
import { type AgentPlan, agentPlan, spawnAgent } from './spawn-agent.js';
import { createWorkspace, removeWorkspace, type Workspace, workspacePaths } from './workspace.js';

/**
 * An executor that runs each run on an agent CLI (its `config.harness`: docs/harnesses.md) or on
 * one local command speaking plain lines and a JSON-lines protocol on stdout (docs/executors.md,
 * "The process executor"), in a fresh workspace, with a clean environment. Node only.
 */
export function processExecutor(options: ProcessExecutorOptions): Executor {
  const config = resolveOptions(options, join(tmpdir(), 'agentrun-runs'));
  // Containment, sandbox and user, checked once (docs/executors.md, "Isolating the agent", "Containment").
  const plan = agentPlan(config);
  // How maxWorkspaceBytes is held, checked once (docs/executors.md, "Disk limits").
  const disk = { maxBytes: config.maxWorkspaceBytes, plan: diskPlan(config.maxWorkspaceBytes, config.diskLimit) };
  // The agent CLIs found, and what a run with no harness named runs (docs/harnesses.md).
  const clis = installedHarnesses(config.harnesses, process.env.PATH);
  const defaultType = defaultHarness(config, clis);
  // A session's directory goes when its idle time passes, unless every run directory is kept.
  const parking = sessionParking((workspace) => {
    if (config.keepWorkspaces !== 'always') void removeWorkspace(workspace).catch(config.onError);
  });
  let defaultRepositories: WorkspaceRepositories | undefined;
  /** The host's, else one `gitSources()` made at the first run with an environment. */
  const repositories = (): WorkspaceRepositories => {
    if (config.repositories) return config.repositories;
    defaultRepositories ??= gitSources();
    return defaultRepositories;
  };
  return {
    harnesses: () => harnessList(clis, config.command !== undefined, defaultType),
    async execute(input, context) {
      const type = namedHarness(input.run.agent_config ?? {}) ?? defaultType;
      const cli = type !== 'command' && isCliType(type) ? clis.get(type) : undefined;
      if (type === 'command' ? config.command === undefined : cli === undefined) {
        // Checked at create against the executor the API has; this one (another worker's) may run less.
        return { status: 'failed', message: `This worker cannot run harness ${type}`, error_code: 'harness_unavailable' };
      }
      const parked = cli ? parking.take(input.run.run_id) : undefined;
      const workspace = parked?.workspace ?? (await createWorkspace(config.workspaceRoot, input, disk, config.user));
      let outcome: ExecutionOutcome | undefined;
      let session: ParkedSession | undefined;
      const stops = runStops(config, context, workspace);
      // One output budget for the execution: its setup commands' lines and its agent's.
      const budget = outputBudget(config.maxOutputBytes);
      const env = agentEnvironment(
        process.env,
        config.allow,
        config.set,
        { runId: input.run.run_id, attempt: input.attempt, workspace },
        isolatedHome(config, workspace, plan.privateTmp),
        input.environment?.variables,
      );
      let late: Promise<unknown> | undefined;
      try {
        // A kept session's workspace was prepared by its first execution.
        if (input.environment && !parked) {
          const prepared = await prepareEnvironment({
            runner: spawnedSetup(plan, workspace),
            repositories: repositories(),
            environment: input.environment,
            context,
            workspace,
            env,
            stops,
            budget,
          });
          late = prepared.late;
          if (prepared.outcome) {
            outcome = prepared.outcome;
            return outcome;
          }
        }
        if (cli) {
          ({ outcome, session } = await runHarness({
            runner: spawnedHarness(plan, workspace, cli),
            harness: cli.harness,
            input,
            context,
            workspace,
            env,
            stops,
            budget,
            parked,
          }));
          return outcome;
        }
        outcome = await runAgent(config, input, context, workspace, plan, { env, stops, budget });
        return outcome;
      } finally {
        stops.dispose();
        const keep = config.keepWorkspaces === 'always' || (config.keepWorkspaces === 'on-failure' && outcome?.status !== 'succeeded');
        const idleMs = idleTime(config, input);
        if (session && outcome?.status === 'succeeded' && idleMs > 0 && !context.signal.aborted) {
          // Kept for a follow-up to continue the session; removed when its idle time passes (session-parking.ts).
          parking.park(input.run.run_id, session, idleMs);
        } else if (!keep) {
          await removeWorkspace(workspace).catch((error: unknown) => leftBehind(config, context, error));
          // A clone still running when the run stopped writes into the workspace when it ends: removed again then.
          void late?.finally(() => removeWorkspace(workspace).catch(config.onError));
        }
      }
    },
  };
}

/**
 * A run directory that could not be removed is not forgotten: the host hears it (`onError`), and
 * so does the run's transcript, while the execution may still write to it.
 */
async function leftBehind(config: ResolvedOptions, context: ExecutionContext, error: unknown): Promise<void> {
  config.onError(error);
  const message = error instanceof Error ? error.message : String(error);
  await context.record?.([{ type: 'status', data: { message: message.slice(0, 1000) } }]).catch(config.onError);
}

async function runAgent(
  config: ResolvedOptions,
  input: ExecutionInput,
  context: ExecutionContext,
  workspace: Workspace,
  plan: AgentPlan,
  { env, stops, budget }: { env: Record<string, string>; stops: RunStops; budget: OutputBudget },
): Promise<ExecutionOutcome> {
  const replace = (arg: string) =>
    arg.replace(/\{(workspace|prompt_file|mcp_config|run_id|attempt)\}/g, (_, name: string) =>
      name === 'workspace'
        ? workspace.dir
        : name === 'prompt_file'
          ? workspace.promptFile
          : name === 'mcp_config'
            ? workspace.mcpConfigFile
            : name === 'run_id'
              ? input.run.run_id
              : String(input.attempt),
    );
  // Stopped during the setup, or since: the agent is not started.
  if (stops.stop) return stoppedOutcome(stops.stop);
  // Spawned in its containment, under its user, in its sandbox (spawn-agent.ts).
  const agent = await spawnAgent(plan, { command: config.command ?? '', args: config.args.map(replace) }, workspacePaths(workspace), env);
  const child = agent.child;

  // Every line goes through one queue, in the order printed: its event, and the status it leaves
  // (agent-output.ts), while the run's output budget lasts. stdout waits while the store is behind.
  const output = agentOutput(context, {
    maxOutputBytes: config.maxOutputBytes,
    onError: config.onError,
    backpressure: { pause: () => child.stdout?.pause(), resume: () => child.stdout?.resume() },
    budget,
    workspace: workspace.dir,
  });

  const piped = pipeAgent(agent, output, stops);

  // Follow-ups: the ones so far first (a re-queued run continues its conversation), then each as it comes.
  child.stdin?.on('error', () => {}); // EPIPE when the agent closed its stdin: it does not read follow-ups.
  for (const f of input.followups) child.stdin?.write(followupLine(f));
  const unsubscribe = context.onFollowup((f) => child.stdin?.write(followupLine(f)));

  try {
    // Once the agent exited it reads no more: a follow-up from then on stays with the worker, which
    // queues the run again with it (docs/executors.md, "Follow-ups"), instead of going to a stdin nobody reads.
    const { code, stderrTail: tail } = await piped.settle(unsubscribe);
    if (stops.stop) return stoppedOutcome(stops.stop);
    // 126/127: the closer's, the shell's or the init's "not executable" / "not found" (spawn-agent.ts).
    return exitOutcome(code, tail, output.result);
  } finally {
    unsubscribe();
    piped.release();
  }
}

/** What a run with no harness named runs: as configured, else the command, else the first CLI found. */
function defaultHarness(config: ResolvedOptions, clis: ReadonlyMap<string, unknown>): HarnessType {
  const chosen = config.defaultHarness ?? (config.command !== undefined ? 'command' : [...clis.keys()][0]);
  if (chosen === undefined) {
    throw new TypeError(
      'processExecutor: nothing to run: give option command (the command harness), or install an agent CLI (claude, codex or gemini: docs/harnesses.md)',
    );
  }
  if (chosen === 'command' ? config.command === undefined : !clis.has(chosen)) {
    throw new TypeError(
      `processExecutor: option defaultHarness: ${chosen} is not available here (it runs ${[...clis.keys(), ...(config.command ? ['command'] : [])].join(', ') || 'nothing'})`,
    );
  }
  return chosen as HarnessType;
}

/** How long a session waits for a follow-up: the run's `idle_timeout_minutes`, else the executor's `sessionIdleMs`. */
const idleTime = (config: ResolvedOptions, input: ExecutionInput) => {
  const minutes = input.run.agent_config?.idle_timeout_minutes;
  return minutes !== undefined ? minutes * 60_000 : config.sessionIdleMs;
};
