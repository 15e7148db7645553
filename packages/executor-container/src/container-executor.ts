import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ExecutionContext,
  type ExecutionInput,
  type ExecutionOutcome,
  type Executor,
  namedHarness,
  type RunErrorCode,
} from '@agentrun/core';
import {
  agentOutput,
  createWorkspace,
  exitOutcome,
  followupLine,
  type InstalledHarness,
  outputBudget,
  pipeAgent,
  prepareEnvironment,
  type RunStops,
  removeWorkspace,
  runHarness,
  runStops,
  type SetupRunner,
  stoppedOutcome,
  type Workspace,
  type WorkspaceRepositories,
} from '@agentrun/executor-process/internal';
import { gitSources } from '@agentrun/git-sources';
import { type ContainerAgent, containerAgent, containerStopper, execAgent, type Stopper } from './container-agent.js';
import { containerHarnessList, declaredHarnesses, execHarness, programIn } from './container-harness.js';
import { containerEnv, containerSpec, runLimits } from './container-spec.js';
import { engineAddress } from './engine-address.js';
import { type EngineClient, engineClient } from './engine-client.js';
import { ownerIdentity } from './labels.js';
import { type ContainerExecutorOptions, type ResolvedOptions, resolveOptions } from './options.js';
import { removeOrphans } from './sweep.js';

/** The codes of core's list this executor gives (RUN_ERROR_CODES). */
const IMAGE_UNAVAILABLE: RunErrorCode = 'image_unavailable';
const OUT_OF_MEMORY: RunErrorCode = 'out_of_memory';

/** The container executor: an `Executor`, and the sweep of this host's leftover containers. */
export interface ContainerExecutor extends Executor {
  /**
   * Removes every container labelled with this executor's host that no live execution holds
   * (docs/executors.md, "The container executor", "Labels and cleanup"); the worker calls it when
   * it starts, and the first execution runs it too. Resolves to the ids removed.
   */
  sweep(): Promise<string[]>;
  /** The engine's client (for a host's own checks, a benchmark). */
  readonly engine: EngineClient;
}

/**
 * An executor that runs each run in one container of its own through the Docker Engine API,
 * against Docker or Podman (docs/executors.md, "The container executor"): the process executor's
 * workspace, environment setup, protocol and output budget, in a container with limits.
 */
export function containerExecutor(options: ContainerExecutorOptions = {}): ContainerExecutor {
  const config = resolveOptions(options, join(tmpdir(), 'agentrun-container-runs'));
  const declared = declaredHarnesses(config.harnesses);
  const engine = engineClient(engineAddress(config.engine));
  const owner = ownerIdentity() ?? `${process.pid}`;
  /** The names of the containers this executor runs now: the sweep leaves them. */
  const running = new Set<string>();
  /** Whether a sweep ran (the worker's, or the first execution's). */
  let swept = false;
  const sweep = () => removeOrphans(engine, config.host, running, config.onError);
  let defaultRepositories: WorkspaceRepositories | undefined;
  const repositories = () => {
    if (config.repositories) return config.repositories;
    defaultRepositories ??= gitSources();
    return defaultRepositories;
  };
  // The workspace is the agent's user's when the server may give it (root); else the server's, and the agent runs as the server's uid.
  const root = process.geteuid?.() === 0;
  if (!root && options.user === undefined) config.user = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  return {
    engine,
    // The CLIs the images hold, as declared (docs/executors.md, "Agent CLIs"), and the command harness, the default.
    harnesses: () => containerHarnessList(declared),
    sweep: () => {
      swept = true;
      return sweep();
    },
    async execute(input, context) {
      if (!swept) {
        swept = true;
        void sweep().catch(config.onError);
      }
      const harness = namedHarness(input.run.agent_config ?? {});
      const cli =
        harness === undefined || harness === 'command' ? undefined : (declared as ReadonlyMap<string, InstalledHarness>).get(harness);
      if (harness !== undefined && harness !== 'command' && cli === undefined) {
        // Checked at create against the executor the API has; this one (another worker's) may run less.
        return { status: 'failed', message: `This worker cannot run harness ${harness}`, error_code: 'harness_unavailable' };
      }
      const image = input.environment?.image ?? config.image;
      if (image === undefined) {
        return {
          status: 'failed',
          message: 'No image to run: the run’s environment names none, and the container executor has no default image',
          error_code: IMAGE_UNAVAILABLE,
        };
      }
      const inspected = await engine.image(image);
      if (inspected === undefined) {
        return {
          status: 'failed',
          message: `The image ${image} is not on the container engine (the executor does not pull: pull or build it on the engine first)`,
          error_code: IMAGE_UNAVAILABLE,
        };
      }
      const workspace = await createWorkspace(
        config.workspaceRoot,
        input,
        { maxBytes: undefined, plan: undefined },
        root ? config.user : undefined,
      );
      // An agent CLI's home: the run's own, beside its workspace, bind-mounted (container-spec.ts CONTAINER_HOME).
      const harnessHome = cli ? join(workspace.area.dir, 'home') : undefined;
      const name = `agentrun-${input.run.run_id.replace(/[^a-zA-Z0-9_.-]/g, '_').slice(0, 80)}-${input.attempt}-${randomBytes(3).toString('hex')}`;
      running.add(name);
      let id: string | undefined;
      const late: RunParts['late'] = {};
      const stops = runStops({ timeoutMs: config.timeoutMs, maxWorkspaceBytes: undefined }, context, workspace);
      try {
        const env = containerEnv(config, input);
        const gated = (input.environment?.setup.length ?? 0) > 0;
        if (harnessHome !== undefined) await mkdir(harnessHome, { recursive: true, mode: 0o700 });
        id = await engine.create(
          name,
          containerSpec(config, {
            image,
            imageArgv: imageArgv(inspected),
            input,
            workspace: workspace.dir,
            env,
            owner,
            gated,
            harnessHome,
          }),
        );
        const stopper = containerStopper(engine, id, config.killGraceMs, config.onError);
        const attached = await engine.attach(id);
        const started = engine.start(id);
        const agent = containerAgent(engine, id, attached, stopper, started);
        await started;
        const program = cli && harnessHome !== undefined ? { cli, path: programIn(inspected, cli), home: harnessHome } : undefined;
        return await runIn({
          config,
          input,
          context,
          workspace,
          stops,
          env,
          agent,
          stopper,
          id,
          engine,
          repositories,
          gated,
          late,
          program,
        });
      } finally {
        stops.dispose();
        if (id !== undefined) await removeContainer(engine, id, config, context);
        running.delete(name);
        await removeWorkspace(workspace).catch(config.onError);
        void late.work?.finally(() => removeWorkspace(workspace).catch(config.onError));
      }
    },
  };
}

interface RunParts {
  config: ResolvedOptions;
  input: ExecutionInput;
  context: ExecutionContext;
  workspace: Workspace;
  stops: RunStops;
  env: Record<string, string>;
  agent: ContainerAgent;
  stopper: Stopper;
  id: string;
  engine: EngineClient;
  repositories: () => WorkspaceRepositories;
  gated: boolean;
  /** A checkout still running when the run stopped: the workspace is removed again when it ends. */
  late: { work?: Promise<unknown> };
  /** An agent CLI's run: the CLI, its path in the image, the run's home on this host. */
  program: { cli: InstalledHarness; path: string; home: string } | undefined;
}

/** The environment's preparation (setup commands in the container, the agent behind the gate), then the agent, to its outcome. */
async function runIn(parts: RunParts): Promise<ExecutionOutcome> {
  const { config, input, context, workspace, stops, env, agent, stopper, id, engine } = parts;
  const budget = outputBudget(config.maxOutputBytes);
  const stdin = agent.child.stdin;
  stdin?.on('error', () => {});
  const at = { engine, id, stopper, user: config.user };
  // Files made on the host into the bind mounts (checkouts, a CLI's home) go to the agent's user when the server may give them.
  const owner = process.geteuid?.() === 0 ? config.user : undefined;
  if (input.environment) {
    const runner: SetupRunner = {
      user: owner,
      maxOutputBytes: config.maxOutputBytes,
      onError: config.onError,
      launch: (command, setupEnv) => execAgent(at, ['/bin/sh', '-c', command], setupEnv),
    };
    const prepared = await prepareEnvironment({
      runner,
      repositories: parts.repositories(),
      environment: input.environment,
      context,
      workspace,
      env,
      stops,
      budget,
    });
    parts.late.work = prepared.late;
    if (prepared.outcome) {
      stopper.stop();
      return prepared.outcome;
    }
  }
  if (stops.stop) return stoppedOutcome(stops.stop);
  if (parts.program) {
    const { cli, path, home } = parts.program;
    const endpoint = config.endpoints[cli.harness.type];
    const runner = execHarness({
      at,
      home,
      program: path,
      owner,
      endpoint,
      maxOutputBytes: config.maxOutputBytes,
      onError: config.onError,
    });
    // No session is kept past the execution: the container goes with it (a follow-up after the end is a new session told the conversation).
    const ran = await runHarness({ runner, harness: cli.harness, input, context, workspace, env, stops, budget, parked: undefined });
    return ran.outcome;
  }
  // Behind the gate until now: the setup succeeded, the agent starts.
  if (parts.gated) stdin?.write('\n');
  const output = agentOutput(context, {
    maxOutputBytes: config.maxOutputBytes,
    onError: config.onError,
    backpressure: { pause: () => agent.child.stdout?.pause(), resume: () => agent.child.stdout?.resume() },
    budget,
    workspace: workspace.dir,
  });
  const piped = pipeAgent(agent, output, stops);
  for (const f of input.followups) stdin?.write(followupLine(f));
  const unsubscribe = context.onFollowup((f) => stdin?.write(followupLine(f)));
  try {
    const { code, stderrTail: tail } = await piped.settle(unsubscribe);
    if (stops.stop) return stoppedOutcome(stops.stop);
    const state = await engine.inspect(id).catch(() => undefined);
    const limitMb = runLimits(config, input.environment?.limits).memoryMb;
    // Podman (cgroup v1) reports OOMKilled false for a kernel OOM kill; exit 137 (SIGKILL) that no stop of ours sent is taken as one.
    if (state?.oomKilled || (code === 137 && !agent.stopped)) {
      return {
        status: 'failed',
        message: `The agent ran out of memory: its container's limit is ${limitMb} MiB${state?.oomKilled ? '' : ' (it was killed by SIGKILL, exit 137)'}`,
        error_code: OUT_OF_MEMORY,
      };
    }
    return exitOutcome(code, tail, output.result);
  } finally {
    unsubscribe();
    piped.release();
  }
}

/** The container gone, running or not; one that cannot be removed is told to onError and the transcript, and the sweep tries again. */
async function removeContainer(engine: EngineClient, id: string, config: ResolvedOptions, context: ExecutionContext): Promise<void> {
  try {
    await engine.remove(id);
  } catch (first) {
    try {
      await engine.remove(id);
    } catch {
      config.onError(first);
      const message = `The run's container ${id.slice(0, 12)} could not be removed: ${first instanceof Error ? first.message : String(first)}`;
      await context.record?.([{ type: 'status', data: { message: message.slice(0, 1000) } }]).catch(config.onError);
    }
  }
}

/** The image's own entrypoint and command: what a run with no `command` runs. */
function imageArgv(inspected: Record<string, unknown>): string[] {
  const image = (inspected.Config ?? {}) as { Entrypoint?: string[] | null; Cmd?: string[] | null };
  return [...(image.Entrypoint ?? []), ...(image.Cmd ?? [])];
}
