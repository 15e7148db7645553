import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AgentRun,
  type AgentRunOptions,
  type CallbackOptions,
  demoExecutor,
  type Executor,
  type RepositoryReader,
  type SecretKeyOption,
  type Store,
  type Worker,
} from '@agentrun/core';

/** What the reference server's worker says of itself and takes (docs/operations.md, "Worker hosts"). */
export interface WorkerHostOptions {
  host?: string;
  unrouted?: boolean;
  concurrency?: number;
  /** The executor's name in the workers list. */
  executorName?: string;
}

/** What the reference server and a worker process (docs/operations.md, "Worker hosts") are given alike. */
export interface ProcessOptions {
  store: Store;
  executor?: Executor;
  /** How long the demo executor works on a run, when no executor is given. Default 3000 ms. */
  demoDurationMs?: number;
  /** Worker poll interval. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Seals team secrets, and signs artifacts' download links; see `createAgentRun`. */
  secretKey?: SecretKeyOption;
  /** How skills are read from the team's registered repositories; see `createAgentRun` (docs/repositories.md). */
  repositories?: RepositoryReader;
  /** Run-state callbacks: where they may go, how they are retried (docs/callbacks.md, "Options"). */
  callbacks?: CallbackOptions;
  /**
   * How long an evaluation claim holds (docs/webhooks.md, "When runs start"): the deliveries a
   * killed process was evaluating are evaluated by another after it. Default 30,000 ms.
   */
  evaluationLeaseMs?: number;
  /** Its worker's host, routing and concurrency (docs/operations.md, "Worker hosts"); default: `createWorker`'s. */
  worker?: WorkerHostOptions;
}

/** The `createAgentRun` options both kinds of process build from theirs. */
export function agentRunOptions(
  options: ProcessOptions,
): Pick<AgentRunOptions, 'store' | 'executor' | 'secretKey' | 'repositories' | 'callbacks' | 'evaluation'> {
  return {
    store: options.store,
    executor: options.executor ?? demoExecutor(options.demoDurationMs !== undefined ? { durationMs: options.demoDurationMs } : {}),
    ...(options.secretKey !== undefined ? { secretKey: options.secretKey } : {}),
    ...(options.repositories !== undefined ? { repositories: options.repositories } : {}),
    ...(options.callbacks !== undefined ? { callbacks: options.callbacks } : {}),
    ...(options.evaluationLeaseMs !== undefined ? { evaluation: { leaseMs: options.evaluationLeaseMs } } : {}),
  };
}

/** The process's worker, started: its host and capacity as given, the server's version in the workers list. */
export function startWorker(agentrun: AgentRun, options: ProcessOptions, version: string): Worker {
  const worker = agentrun.worker({
    ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
    ...options.worker,
    version,
  });
  worker.start();
  return worker;
}

/** Listen on `host:port` (defaults 127.0.0.1:8080); the URL it listens at. */
export async function listen(server: Server, port = 8080, host = '127.0.0.1'): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${shown}:${address.port}`;
}
