import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutionContext, ExecutionInput, ExecutionOutcome, Executor } from '@agentrun/core';
import { agentOutput } from './agent-output.js';
import { agentEnvironment, isolatedHome } from './environment.js';
import { type ProcessExecutorOptions, type ResolvedOptions, resolveOptions } from './options.js';
import { followupLine } from './protocol.js';
import { type AgentPlan, agentPlan, spawnAgent } from './spawn-agent.js';
import { createWorkspace, directoryBytes, removeWorkspace, type Workspace } from './workspace.js';

/** How often the workspace's size is checked against `maxWorkspaceBytes`. */
const DISK_CHECK_MS = 1000;
/** How much of stderr's end a failed run's message carries. */
const STDERR_TAIL_BYTES = 2048;

/**
 * An executor that runs one local command per run, in a fresh workspace, with a clean
 * environment, speaking plain lines and a JSON-lines protocol on stdout (docs/executors.md,
 * "The process executor"). Node only.
 */
export function processExecutor(options: ProcessExecutorOptions): Executor {
  const config = resolveOptions(options, join(tmpdir(), 'agentrun-runs'));
  // Containment, sandbox and user, checked once (docs/executors.md, "Isolating the agent", "Containment").
  const plan = agentPlan(config);
  return {
    async execute(input, context) {
      const workspace = await createWorkspace(config.workspaceRoot, input, config.user);
      let outcome: ExecutionOutcome | undefined;
      try {
        outcome = await runAgent(config, input, context, workspace, plan);
        return outcome;
      } finally {
        const keep = config.keepWorkspaces === 'always' || (config.keepWorkspaces === 'on-failure' && outcome?.status !== 'succeeded');
        if (!keep) await removeWorkspace(workspace).catch(config.onError);
      }
    },
  };
}

/** Why the executor stopped the agent, when it did. */
type Stop = { reason: 'cancel' } | { reason: 'timeout' | 'disk_limit'; message: string };

async function runAgent(
  config: ResolvedOptions,
  input: ExecutionInput,
  context: ExecutionContext,
  workspace: Workspace,
  plan: AgentPlan,
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
  const env = agentEnvironment(
    process.env,
    config.allow,
    config.set,
    { runId: input.run.run_id, attempt: input.attempt, workspace },
    isolatedHome(config, workspace),
  );
  // Spawned in its containment, under its user, in its sandbox (spawn-agent.ts).
  const agent = await spawnAgent(plan, { command: config.command, args: config.args.map(replace) }, workspace.dir, env);
  const child = agent.child;

  // Every line goes through one queue, in the order printed: its event, and the status it leaves
  // (agent-output.ts), while the run's output budget lasts. stdout waits while the store is behind.
  const output = agentOutput(context, {
    maxOutputBytes: config.maxOutputBytes,
    onError: config.onError,
    backpressure: { pause: () => child.stdout?.pause(), resume: () => child.stdout?.resume() },
  });

  let stop: Stop | undefined;
  const stopAgent = (why: Stop) => {
    stop ??= why;
    // Lines still waiting for the store are not waited for (docs/executors.md, "Output budget").
    output.stop(why.reason);
    agent.terminate();
  };
  const onAbort = () => stopAgent({ reason: 'cancel' });
  if (context.signal.aborted) onAbort();
  context.signal.addEventListener('abort', onAbort, { once: true });
  const timeout =
    config.timeoutMs === undefined
      ? undefined
      : setTimeout(() => stopAgent({ reason: 'timeout', message: `The agent ran longer than ${config.timeoutMs} ms` }), config.timeoutMs);
  const diskCheck =
    config.maxWorkspaceBytes === undefined
      ? undefined
      : setInterval(() => void checkDisk(config.maxWorkspaceBytes as number), DISK_CHECK_MS);
  const checkDisk = async (max: number) => {
    const bytes = await directoryBytes(workspace.dir);
    if (bytes > max) stopAgent({ reason: 'disk_limit', message: `The workspace grew beyond ${max} bytes (${bytes})` });
  };

  // Follow-ups: the ones so far first (a re-queued run continues its conversation), then each as it comes.
  child.stdin?.on('error', () => {}); // EPIPE when the agent closed its stdin: it does not read follow-ups.
  for (const f of input.followups) child.stdin?.write(followupLine(f));
  const unsubscribe = context.onFollowup((f) => child.stdin?.write(followupLine(f)));

  let stderrTail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_BYTES);
  });
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => output.write(chunk));
  child.stdout?.on('end', () => output.end());

  try {
    const code = await agent.exited;
    // The agent reads no more: a follow-up from now on stays with the worker, which queues the run
    // again with it (docs/executors.md, "Follow-ups"), instead of going to a stdin nobody reads.
    unsubscribe();
    // The agent is done: every descendant it left goes too (spawn-agent.ts). Its output already
    // in the pipes is still read to the end, but a pipe some escaped process holds open is not waited on.
    await agent.finish();
    await output.close();
    const tail = stderrTail.trim();
    if (stop?.reason === 'cancel') return { status: 'failed', message: 'Cancelled' };
    if (stop) return { status: 'failed', message: stop.message, error_code: stop.reason };
    if (agent.startCodes && (code === 126 || code === 127)) {
      // The shell's (or the init's) "not executable" / "not found": the command could not start (an ERROR, not the agent failing).
      throw new Error(`the agent command could not start (exit ${code})${tail ? `: ${tail}` : ''}`);
    }
    if (output.result) return output.result;
    if (code === 0) return { status: 'succeeded', message: 'The agent finished' };
    return {
      status: 'failed',
      message: `The agent exited with ${code === null ? 'a signal' : `code ${code}`}${tail ? `: ${tail}` : ''}`,
      error_code: 'agent_exit',
    };
  } finally {
    clearTimeout(timeout);
    clearInterval(diskCheck);
    context.signal.removeEventListener('abort', onAbort);
    unsubscribe();
    agent.release();
  }
}
