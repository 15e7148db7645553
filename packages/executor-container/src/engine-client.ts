import { type ClientRequest, type IncomingMessage, request } from 'node:http';
import type { Duplex, Readable } from 'node:stream';
import type { EngineAddress } from './engine-address.js';

/**
 * The few endpoints of the Docker Engine API the executor uses, over node:http (docs/executors.md,
 * "The container executor"): no dependency, so `npm install` needs no native build (dockerode
 * brings ssh2 and its optional native parts). Paths carry no API version: Docker and Podman's
 * compatible service both answer unversioned paths in their own current version.
 */
export interface EngineClient {
  ping(): Promise<void>;
  version(): Promise<EngineVersion>;
  /** The image's inspect, or undefined when the engine has no such image. */
  image(name: string): Promise<Record<string, unknown> | undefined>;
  create(name: string | undefined, spec: ContainerSpec): Promise<string>;
  /** The container's stdin, stdout and stderr, attached before it starts so nothing is missed. */
  attach(id: string): Promise<Duplex>;
  start(id: string): Promise<void>;
  /** SIGTERM, then SIGKILL after `seconds` (the engine's own stop). */
  stop(id: string, seconds: number): Promise<void>;
  kill(id: string): Promise<void>;
  /** Resolves when the container is not running, with its exit code. */
  wait(id: string): Promise<number>;
  inspect(id: string): Promise<ContainerState | undefined>;
  /** Removed, running or not, with its anonymous volumes; one already gone is fine. */
  remove(id: string): Promise<void>;
  /**
   * `argv` run in the running container (an environment's setup command), its stdout and stderr
   * multiplexed on the returned stream, which ends when it exits; `exitCode` then says how.
   */
  exec(id: string, spec: ExecSpec): Promise<{ stream: Readable; exitCode(): Promise<number | null> }>;
  /** Containers (running or not) having every label given (`name=value`, or `name` alone). */
  list(labels: readonly string[]): Promise<ContainerSummary[]>;
}

export interface EngineVersion {
  version: string;
  apiVersion: string;
  /** Podman's compatible service says so among its components. */
  podman: boolean;
}

/** The body of `POST /containers/create` (only what the executor sets). */
export interface ContainerSpec {
  Image: string;
  Cmd?: string[];
  Entrypoint?: string[];
  Env: string[];
  WorkingDir: string;
  User?: string;
  Labels: Record<string, string>;
  AttachStdin: boolean;
  AttachStdout: boolean;
  AttachStderr: boolean;
  OpenStdin: boolean;
  StdinOnce: boolean;
  Tty: false;
  HostConfig: Record<string, unknown>;
}

export interface ExecSpec {
  Cmd: string[];
  Env: string[];
  WorkingDir: string;
  User?: string;
}

export interface ContainerState {
  running: boolean;
  /**
   * Its process ended and `exitCode` is its: `State.Status` `exited`, or Podman's `stopped` (ended,
   * its cleanup not run yet). Not `running: false` alone: Podman's `stopping` is that, exit code 0.
   */
  exited: boolean;
  exitCode: number;
  oomKilled: boolean;
}

export interface ContainerSummary {
  id: string;
  /** Its name, without Docker's leading slash. */
  name: string;
  labels: Record<string, string>;
  state: string;
}

/** An answer of the engine that is not a success: its status and message. */
export class EngineError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

/** How long one plain call may take before it fails (a wedged engine must not hold a run forever). */
const CALL_TIMEOUT_MS = 60_000;

export function engineClient(address: EngineAddress): EngineClient {
  const target = address.kind === 'unix' ? { socketPath: address.socketPath } : { host: address.host, port: address.port };
  const call = (method: string, path: string, body?: unknown, timeoutMs = CALL_TIMEOUT_MS) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = request({
        ...target,
        method,
        path,
        headers: { Host: 'docker', ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': payload.length } : {}) },
        timeout: timeoutMs,
      });
      req.once('timeout', () => req.destroy(new Error(`the container engine did not answer ${method} ${path} within ${timeoutMs} ms`)));
      req.once('error', (error) =>
        reject(new Error(`the container engine (${describe(address)}) failed ${method} ${path}: ${error.message}`)),
      );
      req.once('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.once('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.once('error', reject);
      });
      req.end(payload);
    });
  const json = async (method: string, path: string, body?: unknown, ok: readonly number[] = [200, 201, 204], timeoutMs?: number) => {
    const res = await call(method, path, body, timeoutMs);
    if (!ok.includes(res.status)) throw new EngineError(res.status, `${method} ${path}: ${res.status} ${messageOf(res.text)}`);
    return res.text === '' ? undefined : (JSON.parse(res.text) as unknown);
  };
  const enc = encodeURIComponent;
  return {
    async ping() {
      const res = await call('GET', '/_ping');
      if (res.status !== 200) throw new EngineError(res.status, `the container engine answered _ping with ${res.status}`);
    },
    async version() {
      const v = (await json('GET', '/version')) as { Version?: string; ApiVersion?: string; Components?: { Name?: string }[] };
      return {
        version: v.Version ?? 'unknown',
        apiVersion: v.ApiVersion ?? 'unknown',
        podman: (v.Components ?? []).some((c) => /podman/i.test(c.Name ?? '')),
      };
    },
    async image(name) {
      const res = await call('GET', `/images/${enc(name)}/json`);
      if (res.status === 404) return undefined;
      if (res.status !== 200) throw new EngineError(res.status, `inspecting image ${name}: ${res.status} ${messageOf(res.text)}`);
      return JSON.parse(res.text) as Record<string, unknown>;
    },
    async create(name, spec) {
      const created = (await json('POST', `/containers/create${name ? `?name=${enc(name)}` : ''}`, spec)) as { Id: string };
      return created.Id;
    },
    attach: (id) => hijack(target, `/containers/${enc(id)}/attach?stream=1&stdin=1&stdout=1&stderr=1`),
    async start(id) {
      await json('POST', `/containers/${enc(id)}/start`, undefined, [204, 304]);
    },
    async stop(id, seconds) {
      await json('POST', `/containers/${enc(id)}/stop?t=${seconds}`, undefined, [204, 304, 404], (seconds + 30) * 1000);
    },
    async kill(id) {
      // 409: not running (any more).
      await json('POST', `/containers/${enc(id)}/kill?signal=SIGKILL`, undefined, [204, 404, 409]);
    },
    async wait(id) {
      // No timeout: a run's container may rightly run for hours; the run's own stops end it.
      const body = (await json('POST', `/containers/${enc(id)}/wait?condition=not-running`, undefined, [200], 0)) as { StatusCode: number };
      return body.StatusCode;
    },
    async inspect(id) {
      const res = await call('GET', `/containers/${enc(id)}/json`);
      if (res.status === 404) return undefined;
      if (res.status !== 200) throw new EngineError(res.status, `inspecting container ${id}: ${res.status} ${messageOf(res.text)}`);
      const state =
        (JSON.parse(res.text) as { State?: { Status?: string; Running?: boolean; ExitCode?: number; OOMKilled?: boolean } }).State ?? {};
      return {
        running: state.Running === true,
        exited: state.Status === 'exited' || state.Status === 'stopped',
        exitCode: state.ExitCode ?? -1,
        oomKilled: state.OOMKilled === true,
      };
    },
    async remove(id) {
      await json('DELETE', `/containers/${enc(id)}?force=1&v=1`, undefined, [200, 204, 404]);
    },
    async exec(id, spec) {
      const body = { ...spec, AttachStdin: false, AttachStdout: true, AttachStderr: true, Tty: false };
      const created = (await json('POST', `/containers/${enc(id)}/exec`, body)) as { Id: string };
      const stream = await streamed(target, `/exec/${enc(created.Id)}/start`, { Detach: false, Tty: false });
      return {
        stream,
        async exitCode() {
          const state = (await json('GET', `/exec/${enc(created.Id)}/json`)) as { ExitCode?: number | null };
          return state.ExitCode ?? null;
        },
      };
    },
    async list(labels) {
      const filters = enc(JSON.stringify({ label: labels }));
      const list = (await json('GET', `/containers/json?all=1&filters=${filters}`)) as {
        Id: string;
        Names?: string[];
        Labels?: Record<string, string>;
        State?: string;
      }[];
      return list.map((c) => ({ id: c.Id, name: (c.Names?.[0] ?? '').replace(/^\//, ''), labels: c.Labels ?? {}, state: c.State ?? '' }));
    },
  };
}

/**
 * `POST …/attach`, hijacked: the engine answers 101 and the connection becomes the container's
 * stdin (written) and its multiplexed stdout and stderr (read: stream-demux.ts).
 */
function hijack(target: Record<string, unknown>, path: string): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const req: ClientRequest = request({
      ...target,
      method: 'POST',
      path,
      headers: { Host: 'docker', Connection: 'Upgrade', Upgrade: 'tcp', 'Content-Type': 'application/vnd.docker.raw-stream' },
    });
    req.once('upgrade', (_res: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('end', () =>
        reject(new EngineError(res.statusCode ?? 0, `attach: ${res.statusCode} ${messageOf(Buffer.concat(chunks).toString())}`)),
      );
    });
    req.once('error', reject);
    req.end();
  });
}

/** A POST whose answer is a stream read to its end (`exec …/start`): the response itself. */
function streamed(target: Record<string, unknown>, path: string, body: unknown): Promise<Readable> {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(JSON.stringify(body));
    const req = request({
      ...target,
      method: 'POST',
      path,
      headers: { Host: 'docker', 'Content-Type': 'application/json', 'Content-Length': payload.length },
    });
    req.once('response', (res) => {
      if (res.statusCode === 200 || res.statusCode === 101) return resolve(res);
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('end', () =>
        reject(new EngineError(res.statusCode ?? 0, `${path}: ${res.statusCode} ${messageOf(Buffer.concat(chunks).toString())}`)),
      );
    });
    req.once('upgrade', (_res: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    req.once('error', reject);
    req.end(payload);
  });
}

/** The engine's `{"message": …}`, else its text. */
function messageOf(text: string): string {
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // Not JSON: the text as it is.
  }
  return text.trim().slice(0, 500);
}

const describe = (address: EngineAddress) =>
  address.kind === 'unix' ? `unix://${address.socketPath}` : `tcp://${address.host}:${address.port}`;
