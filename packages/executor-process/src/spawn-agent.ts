import { type ChildProcess, spawn } from 'node:child_process';
import { type ContainmentKind, chooseContainment, INIT, unshareArgs } from './containment.js';
import { closeDescriptors } from './descriptors.js';
import type { ResolvedOptions } from './options.js';
import { PRIVATE_TMP } from './private-tmp.js';
import { watchProcessGroup } from './process-group.js';
import { HELPER_PATH } from './run-program.js';
import { bubblewrapArgs, findBubblewrap, findProgram, type SandboxPaths } from './sandbox.js';
import { sweepByEnvironment } from './sweep.js';

/**
 * Starting the agent and ending it, with every descendant (docs/executors.md, "Containment" and
 * "Isolating the agent"). How the agent is wrapped:
 *
 *   pid-namespace:  <close> unshare --pid --fork --kill-child --mount-proc  /bin/sh -c INIT
 *                     [/bin/sh -c PRIVATE_TMP | bwrap <sandbox> --]  [setpriv --reuid U --regid G … --]  <agent>
 *   process-group:  <close> <agent>, spawned with uid/gid when a user is set
 *
 * `<close>` closes every descriptor but 0–2 that the server inherited without close-on-exec
 * (descriptors.ts); PRIVATE_TMP gives an agent under its own user, without the sandbox, the run's
 * own /tmp, /var/tmp and /dev/shm (private-tmp.ts); the sandbox has its own (sandbox.ts).
 *
 * In both the wrapper (or the agent) is spawned `detached`: its pid is the process group the
 * cancel, the timeout and the watchdog signal.
 */

/** What of a running agent its run reads and writes: stdin, stdout and stderr. */
export type AgentPipes = Pick<ChildProcess, 'stdin' | 'stdout' | 'stderr'>;

/** How the executor's options resolve to a way of starting agents (made once, at construction). */
export interface AgentPlan {
  config: ResolvedOptions;
  containment: ContainmentKind;
  /** bwrap's path, with a sandbox. */
  bwrap?: string;
  /** setpriv's path, with a user under a PID namespace. */
  setpriv?: string;
  /** Whether the agent has a /tmp of its own (the sandbox, or its user under a PID namespace), not the host's. */
  privateTmp: boolean;
  /** unshare's path, under a PID namespace: found on the server's PATH, not the agent's (which `env.set` may replace). */
  unshare?: string;
  /** mount's and mkdir's paths, for a private /tmp without the sandbox. */
  mount?: [string, string];
  /** The wrapper that closes inherited descriptors, to put before the program. */
  close: string[];
}

/** The plan for these options; throws when they ask for what cannot be had here (a sandbox without bwrap, say). */
export function agentPlan(config: ResolvedOptions): AgentPlan {
  const containment = chooseContainment(config.containment, config.sandbox !== undefined);
  const privateTmp = containment === 'pid-namespace' && (config.sandbox !== undefined || config.user !== undefined);
  const plan: AgentPlan = { config, containment, privateTmp, close: closeDescriptors() };
  if (containment === 'pid-namespace') plan.unshare = findProgram('unshare', HELPER_PATH);
  if (config.sandbox) plan.bwrap = findBubblewrap(process.env.PATH);
  if (privateTmp && !config.sandbox) {
    const mount = findProgram('mount', HELPER_PATH);
    const mkdir = findProgram('mkdir', HELPER_PATH);
    if (!mount || !mkdir)
      throw new Error("processExecutor: option user needs mount (util-linux) under a PID namespace, for the agent's own /tmp");
    plan.mount = [mount, mkdir];
  }
  if (config.user && containment === 'pid-namespace') {
    const setpriv = findProgram('setpriv', process.env.PATH);
    if (!setpriv) throw new Error('processExecutor: option user needs setpriv (util-linux) on PATH under a PID namespace');
    plan.setpriv = setpriv;
  }
  return plan;
}

/** A running agent. */
export interface AgentProcess {
  /** Its pipes: a child process's, or another executor's (a container's attached streams). */
  readonly child: AgentPipes;
  /** Its exit code once it (with `pid-namespace`: its init, so the agent) exited; null after a signal. */
  readonly exited: Promise<number | null>;
  /** SIGTERM now (to the group; under a PID namespace, its init passes it to every process there), SIGKILL after the grace period. */
  terminate(): void;
  /** Once it exited: end every descendant left, then let its output drain (bounded) and close the pipes. */
  finish(): Promise<void>;
  /** Stop watching it (the watchdog). */
  release(): void;
}

/**
 * After the agent exited and its leftovers were killed, output still arriving is read to the end;
 * once none came for this long (and the reader is not holding back for the store) the pipes are
 * closed, so a descendant that escaped containment with stdout open cannot keep the run or its slot.
 */
const DRAIN_IDLE_MS = 500;

export async function spawnAgent(
  plan: AgentPlan,
  argv: { command: string; args: string[]; shell?: boolean },
  paths: SandboxPaths,
  env: Record<string, string>,
): Promise<AgentProcess> {
  const { config } = plan;
  const cwd = paths.workspace;
  const [closer, ...closerArgs] = plan.close as [string, ...string[]];
  // The agent's command goes through the shell as `shell` says; a setup command is already `/bin/sh -c …`.
  const shell = argv.shell ?? config.shell;
  const stdio: ['pipe', 'pipe', 'pipe'] = ['pipe', 'pipe', 'pipe'];
  let child: ChildProcess;
  if (plan.containment === 'process-group') {
    const program = shell ? ['/bin/sh', '-c', [argv.command, ...argv.args].join(' ')] : [argv.command, ...argv.args];
    if (!shell && !findProgram(argv.command, env.PATH)) {
      // What spawn would say; the closer would only exit 127.
      throw new Error(`the agent command ${JSON.stringify(argv.command)} could not start: spawn ${argv.command} ENOENT`);
    }
    child = spawn(closer, [...closerArgs, ...program], {
      cwd,
      env,
      detached: true,
      stdio,
      ...(config.user ? { uid: config.user.uid, gid: config.user.gid } : {}),
    });
  } else {
    if (!shell && !findProgram(argv.command, env.PATH)) {
      // What spawn would say; the init would only exit 127.
      throw new Error(`the agent command ${JSON.stringify(argv.command)} could not start: spawn ${argv.command} ENOENT`);
    }
    const agent = shell ? ['/bin/sh', '-c', [argv.command, ...argv.args].join(' ')] : [argv.command, ...argv.args];
    const sandbox = plan.bwrap && config.sandbox ? [plan.bwrap, ...bubblewrapArgs(config.sandbox, paths, { setUser: !!config.user })] : [];
    const ownTmp =
      plan.privateTmp && sandbox.length === 0 && plan.mount
        ? ['/bin/sh', '-c', PRIVATE_TMP, 'agentrun-tmp', ...plan.mount, paths.workspace, paths.tmp, paths.shm]
        : [];
    const user =
      plan.setpriv && config.user
        ? [plan.setpriv, '--reuid', String(config.user.uid), '--regid', String(config.user.gid), '--clear-groups', '--no-new-privs', '--']
        : [];
    child = spawn(
      closer,
      [
        ...closerArgs,
        plan.unshare ?? 'unshare',
        ...unshareArgs(),
        '/bin/sh',
        '-c',
        INIT,
        'agentrun-init',
        ...ownTmp,
        ...sandbox,
        ...user,
        ...agent,
      ],
      {
        cwd,
        env,
        detached: true,
        stdio,
      },
    );
  }
  await started(child, argv.command);
  const group = watchProcessGroup(child, config.killGraceMs);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    child,
    exited,
    terminate: () => group.terminate(),
    async finish() {
      // Under a PID namespace there is nothing left by now (the kernel ended it with the init);
      // the group's SIGKILL and the sweep are for the process-group containment.
      group.kill();
      if (plan.containment === 'process-group') await sweepByEnvironment(`AGENTRUN_WORKSPACE=${cwd}`).catch(config.onError);
      await drained(child, closed);
    },
    release: () => group.release(),
  };
}

/** Resolves once the process runs; throws (the run ends in ERROR) when it could not start: ENOENT, EACCES. */
function started(child: ChildProcess, command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', (error) => reject(new Error(`the agent command ${JSON.stringify(command)} could not start: ${error.message}`)));
  });
}

/** Resolves when the pipes closed, or once no output came for DRAIN_IDLE_MS (then it closes them). */
function drained(child: ChildProcess, closed: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      clearTimeout(timer);
      child.stdout?.off('data', arm);
      child.stderr?.off('data', arm);
      resolve();
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        // Paused: the transcript is behind the store, and the output is still wanted.
        if (child.stdout?.isPaused() && !child.stdout.destroyed) return arm();
        child.stdout?.destroy();
        child.stderr?.destroy();
        child.stdin?.destroy();
        done();
      }, DRAIN_IDLE_MS);
    };
    child.stdout?.on('data', arm);
    child.stderr?.on('data', arm);
    arm();
    void closed.then(done);
  });
}
