import type { Readable } from 'node:stream';
import type { AgentProcess } from '@agentrun/executor-process/internal';
import { CONTAINER_WORKSPACE } from './container-spec.js';
import type { EngineClient, ExecSpec } from './engine-client.js';
import { demux } from './stream-demux.js';

/**
 * A run's container as the process executor's parts see an agent (`AgentProcess`: its pipes, its
 * exit, its end), so the same reading of its output, the same follow-ups on stdin and the same
 * stops apply (docs/executors.md, "The container executor"). Ending it is the engine's: `stop`
 * (SIGTERM to its first process, SIGKILL after the grace), and with its first process every
 * process in it ends, since the container is a PID namespace of its own.
 */
export interface ContainerAgent extends AgentProcess {
  /** Whether the executor stopped it (a cancel, a timeout): a SIGKILL is then its own, not the kernel's. */
  readonly stopped: boolean;
}

/** After the agent exited, what is still in the attached stream is read; once none came for this long, it is closed. */
const DRAIN_IDLE_MS = 500;
/** Once the attached stream ended, the container's state is read this often, this many times, for its exit. */
const EXIT_POLL_MS = 10;
const EXIT_POLLS = 100;

export interface Stopper {
  /** The engine's stop (SIGTERM, SIGKILL after the grace), once, however often asked. */
  stop(): void;
  readonly stopped: boolean;
}

/** One stop per container, whatever asks for it: the agent's end, a setup command's, the run's. */
export function containerStopper(engine: EngineClient, id: string, graceMs: number, onError: (e: unknown) => void): Stopper {
  let stopping: Promise<void> | undefined;
  return {
    stop() {
      stopping ??= engine
        .stop(id, Math.ceil(graceMs / 1000))
        // An engine that did not stop it in time: SIGKILL, as the process executor's group gets.
        .catch(() => engine.kill(id))
        .catch(onError);
    },
    get stopped() {
      return stopping !== undefined;
    },
  };
}

/**
 * The container's first process: attached (`attach`) before it was started, its exit from `wait`
 * once it `started` (a wait on a container not yet started answers at once, on both engines).
 */
export function containerAgent(
  engine: EngineClient,
  id: string,
  attached: NodeJS.ReadWriteStream & Readable,
  stopper: Stopper,
  started: Promise<void>,
): ContainerAgent {
  const { stdout, stderr } = demux(attached);
  const exited = started
    .then(() => Promise.race([engine.wait(id), exitOnStreamEnd(engine, id, attached)]))
    .then(
      (code) => code,
      () => null,
    );
  return {
    child: { stdin: attached as never, stdout, stderr },
    exited,
    terminate: () => stopper.stop(),
    finish: () => drained(attached, stdout),
    release: () => {},
    get stopped() {
      return stopper.stopped;
    },
  };
}

/**
 * The container's exit code as soon as its attached stream ended and the engine says it exited:
 * Podman's `wait` answers only once its cleanup process ran, a few hundred milliseconds after the
 * exit, while its inspect has the exit code at once (docs/executors.md, "Docker and Podman"). An
 * agent that closed its stdout and runs on, or an engine that cannot be read, never resolves it:
 * `wait` then says the exit.
 */
async function exitOnStreamEnd(engine: EngineClient, id: string, attached: Readable): Promise<number> {
  const never = new Promise<number>(() => {});
  await new Promise<void>((resolve) => {
    if (attached.readableEnded || attached.destroyed) return resolve();
    attached.once('end', resolve);
    attached.once('close', resolve);
  });
  for (let i = 0; i < EXIT_POLLS; i++) {
    const state = await engine.inspect(id).catch(() => undefined);
    if (state?.exited) return state.exitCode;
    await new Promise((resolve) => setTimeout(resolve, EXIT_POLL_MS));
  }
  return never;
}

/** Where, as whom and with what a command runs in the run's container: its workspace, the agent's user, `env` alone (beside the image's). */
export interface ExecIn {
  engine: EngineClient;
  id: string;
  stopper: Stopper;
  user: { uid: number; gid: number };
}

/**
 * One command run in the container (`exec`): an environment's setup command, an agent CLI's turn.
 * Stopping it stops the container: the run ends.
 */
export async function execAgent(at: ExecIn, argv: string[], env: Record<string, string>): Promise<AgentProcess> {
  const spec: ExecSpec = {
    Cmd: argv,
    Env: Object.entries(env).map(([name, value]) => `${name}=${value}`),
    WorkingDir: CONTAINER_WORKSPACE,
    User: `${at.user.uid}:${at.user.gid}`,
  };
  const { engine, stopper } = at;
  const { stream, exitCode } = await engine.exec(at.id, spec);
  const { stdout, stderr } = demux(stream);
  const ended = new Promise<void>((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', () => resolve());
  });
  return {
    child: { stdin: null, stdout, stderr },
    exited: ended.then(() => exitCode().catch(() => null)),
    terminate: () => stopper.stop(),
    finish: async () => {},
    release: () => {},
  };
}

/** Resolves when the attached stream ended, or once nothing came on it for DRAIN_IDLE_MS (then it is closed). */
function drained(attached: Readable, stdout: Readable): Promise<void> {
  return new Promise((resolve) => {
    if (attached.readableEnded || attached.destroyed) return resolve();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      clearTimeout(timer);
      attached.off('data', arm);
      resolve();
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        // Paused: the transcript is behind the store, and the output is still wanted.
        if (stdout.isPaused() && !stdout.destroyed) return arm();
        attached.destroy();
        done();
      }, DRAIN_IDLE_MS);
    };
    attached.on('data', arm);
    attached.once('close', done);
    attached.once('end', done);
    arm();
  });
}
