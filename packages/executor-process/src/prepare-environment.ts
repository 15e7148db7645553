import { lstat, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExecutionContext, ExecutionOutcome, ResolvedEnvironment, ResolvedRepository, RunErrorCode } from '@agentrun/core';
import { agentOutput } from './agent-output.js';
import type { WorkspaceRepositories } from './options.js';
import type { OutputBudget } from './output-budget.js';
import type { RunStops, Stop } from './run-stops.js';
import { stoppedOutcome } from './run-stops.js';
import { type AgentPlan, type AgentProcess, spawnAgent } from './spawn-agent.js';
import { giveTo, WORKSPACE_FILES, type Workspace, workspacePaths } from './workspace.js';

/**
 * Preparing a run's workspace from its environment (docs/repositories.md, "Environments";
 * docs/executors.md, "Environments"), before the agent starts: each repository checked out at its
 * ref into its directory from the local cache, then each setup command run in order by `/bin/sh
 * -c` in the workspace, as the agent is run (its containment, user, sandbox, clean environment with
 * the variables set, output into the transcript within the execution's budget). All of it within
 * `setupTimeoutSeconds`, and the run's own cancel, timeout and size cap. A failure ends the run
 * FAILED `environment_setup_failed`, with the tail of what the setup printed.
 */

/** The error code of a run whose workspace could not be prepared. */
const SETUP_FAILED: RunErrorCode = 'environment_setup_failed';
/** How much of the setup output's end a failure's message carries. */
const TAIL_CHARS = 4096;
/** A setup command, as a status line shows it. */
const SHOWN_COMMAND = 200;

/** Where and how the setup commands run: as the agent is (spawn-agent.ts, or another executor's way: a container). */
export interface SetupRunner {
  /** The agent's user, given the checked-out files; none: they stay the server's. */
  user: { uid: number; gid: number } | undefined;
  maxOutputBytes: number;
  onError: (error: unknown) => void;
  /** Starts `/bin/sh -c <command>` in the workspace, with `env`, as the agent is started. */
  launch(command: string, env: Record<string, string>): Promise<AgentProcess>;
}

/** The process executor's: each setup command spawned as its agent is, in the same containment, user and sandbox. */
export const spawnedSetup = (plan: AgentPlan, workspace: Workspace): SetupRunner => ({
  user: plan.config.user,
  maxOutputBytes: plan.config.maxOutputBytes,
  onError: plan.config.onError,
  launch: (command, env) => spawnAgent(plan, { command: '/bin/sh', args: ['-c', command], shell: false }, workspacePaths(workspace), env),
});

export interface PrepareInput {
  runner: SetupRunner;
  /** Where repositories are checked out from (options.ts `repositories`). */
  repositories: WorkspaceRepositories;
  environment: ResolvedEnvironment;
  context: ExecutionContext;
  workspace: Workspace;
  /** The agent's environment, variables included: the setup commands get the same. */
  env: Record<string, string>;
  stops: RunStops;
  budget: OutputBudget;
}

export interface Prepared {
  /** Set when the run ends here: the setup failed, or the run was stopped. */
  outcome?: ExecutionOutcome;
  /** A checkout still running when the run stopped (it is not waited for; the workspace is removed again when it ends). */
  late?: Promise<unknown>;
}

/** Why the setup ended early: the run's own stop, or the setup's timeout. */
type SetupStop = Stop | { reason: 'setup_timeout'; message: string };

export async function prepareEnvironment(input: PrepareInput): Promise<Prepared> {
  const { environment, stops, runner } = input;
  const seconds = environment.setupTimeoutSeconds;
  let stop: SetupStop | undefined = stops.stop;
  const listeners = new Set<(s: SetupStop) => void>();
  const fire = (why: SetupStop) => {
    if (stop) return;
    stop = why;
    for (const listener of listeners) listener(why);
  };
  const offRun = stops.on(fire);
  const timer = setTimeout(
    () => fire({ reason: 'setup_timeout', message: `The environment's setup took longer than ${seconds} s (setup_timeout_seconds)` }),
    seconds * 1000,
  );
  const stopped = new Promise<SetupStop>((resolve) => {
    if (stop) resolve(stop);
    listeners.add(resolve);
  });
  const tail = tailBuffer(TAIL_CHARS);
  const failed = (message: string): Prepared => ({ outcome: setupFailed(message, tail.text()) });
  const ended = (why: SetupStop): Prepared => {
    if (why.reason === 'setup_timeout') return failed(why.message);
    return { outcome: stoppedOutcome(why.reason === 'cancel' ? why : { ...why, message: `${why.message}, in the environment's setup` }) };
  };
  try {
    await status(input, `Preparing the workspace from environment ${environment.name}`);
    for (const repository of environment.repositories) {
      if (stop) return ended(stop);
      await status(input, `Cloning ${repository.repository} at ${repository.ref} into ${repository.directory}`);
      const work = checkoutInto(input, repository);
      const first = await Promise.race([
        work.then(
          () => ({ done: true }) as const,
          (error: unknown) => ({ error }) as const,
        ),
        stopped.then((why) => ({ stop: why }) as const),
      ]);
      if ('error' in first) return failed(`Cloning ${repository.repository} at ${repository.ref} failed: ${messageOf(first.error)}`);
      if ('stop' in first) return { ...ended(first.stop), late: work.catch(() => {}) };
    }
    // Checked out by the server: the agent's user is given them, as the rest of the workspace.
    if (runner.user && environment.repositories.length > 0) await giveTo(input.workspace, runner.user);
    for (const [i, command] of environment.setup.entries()) {
      if (stop) return ended(stop);
      await status(input, `Setup ${i + 1}/${environment.setup.length}: ${command.slice(0, SHOWN_COMMAND)}`);
      const code = await runSetupCommand(input, command, tail, (listener) => {
        if (stop) listener();
        else listeners.add(listener);
        return () => listeners.delete(listener);
      });
      if (stop) return ended(stop);
      if (code !== 0)
        return failed(
          `Setup command ${i + 1} of ${environment.setup.length} exited with ${code === null ? 'a signal' : `code ${code}`}: ${command.slice(0, SHOWN_COMMAND)}`,
        );
    }
    return {};
  } finally {
    clearTimeout(timer);
    offRun();
    listeners.clear();
  }
}

/** Resolve the ref (fetching a branch or tag anew, so a run gets its latest commit), then check it out. */
async function checkoutInto({ repositories, workspace }: PrepareInput, repository: ResolvedRepository): Promise<void> {
  const [top] = repository.directory.split('/');
  if (top !== undefined && WORKSPACE_FILES.includes(top))
    throw new Error(`directory ${repository.directory} would hold the workspace's own ${top}: choose another directory`);
  const dest = join(workspace.dir, repository.directory);
  if (await exists(dest)) throw new Error(`directory ${repository.directory} is in the workspace already`);
  // The run's team reads through its own cache entries (docs/repositories.md, "The cache").
  const access = {
    url: repository.url,
    team: repository.team,
    ...(repository.credential ? { credential: repository.credential.reveal() } : {}),
  };
  const commit = await repositories.resolve(access, repository.ref, { refresh: !/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(repository.ref) });
  await mkdir(dest, { recursive: true });
  await repositories.checkout(access, commit, dest);
}

/**
 * One setup command: `/bin/sh -c <command>` in the workspace, spawned as the agent is; its stdout and
 * stderr lines into the transcript as output (no protocol), in the execution's budget. Resolves to
 * its exit code (null after a signal) once it and its descendants are gone.
 */
async function runSetupCommand(
  { runner, context, env, budget }: PrepareInput,
  command: string,
  tail: TailBuffer,
  onStop: (listener: () => void) => () => void,
): Promise<number | null> {
  const setup = await runner.launch(command, env);
  const child = setup.child;
  child.stdin?.on('error', () => {});
  child.stdin?.end();
  const outputs = [child.stdout, child.stderr].map((stream) => {
    const output = agentOutput(context, {
      maxOutputBytes: runner.maxOutputBytes,
      onError: runner.onError,
      backpressure: { pause: () => stream?.pause(), resume: () => stream?.resume() },
      budget,
      plain: true,
    });
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      tail.add(chunk);
      output.write(chunk);
    });
    stream?.on('end', () => output.end());
    return output;
  });
  const off = onStop(() => {
    for (const output of outputs) output.stop('setup stopped');
    setup.terminate();
  });
  try {
    const code = await setup.exited;
    await setup.finish();
    await Promise.all(outputs.map((output) => output.close()));
    return code;
  } finally {
    off();
    setup.release();
  }
}

/** A status event and the run's status; a store that refuses it is told to onError, as the agent's lines are. */
const status = ({ context, runner }: PrepareInput, message: string) => context.report({ message }).catch(runner.onError);

const exists = (path: string) =>
  lstat(path).then(
    () => true,
    () => false,
  );

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function setupFailed(message: string, tail: string): ExecutionOutcome {
  const shown = tail.trim();
  return { status: 'failed', message: shown ? `${message}\n${shown}` : message, error_code: SETUP_FAILED };
}

interface TailBuffer {
  add(text: string): void;
  text(): string;
}

/** The last `max` characters of what was added: a failure's message, in bounded memory. */
function tailBuffer(max: number): TailBuffer {
  let kept = '';
  return {
    add(text) {
      kept = (kept + (text.length > max ? text.slice(-max) : text)).slice(-max);
    },
    text: () => kept,
  };
}
