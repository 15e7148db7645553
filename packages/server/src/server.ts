import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AgentRun,
  type BlobStore,
  type CallbackOptions,
  composeMounts,
  createAgentRun,
  createApiKey,
  demoExecutor,
  type Executor,
  type Principal,
  type RepositoryReader,
  type SecretKeyOption,
  type Store,
  type Worker,
} from '@agentrun/core';
import { sha256Hex } from '@agentrun/core/internal';
import { createDashboard } from '@agentrun/dashboard';
import { createNodeListener, handleClientErrors, shutdownGracefully } from '@agentrun/node';
import { createMemoryBlobStore, createMemoryStore } from '@agentrun/store-memory';

export interface ReferenceServerOptions {
  /** Port to listen on; 0 picks a free one. Default 8080. */
  port?: number;
  host?: string;
  /** The bootstrap API key; generated when absent. */
  apiKey?: string;
  store?: Store;
  executor?: Executor;
  /** How long the demo executor works on a run. Default 3000 ms. */
  demoDurationMs?: number;
  /** Worker poll interval. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Seals team secrets, and signs artifacts' download links; see `createAgentRun`. */
  secretKey?: SecretKeyOption;
  /** Where artifacts' bytes are kept (docs/artifacts.md, "Blob storage"). Default: in memory. */
  blobs?: BlobStore;
  /**
   * Where people reach this server (`https://agents.example.com`): a run's `session_link` is its
   * dashboard page under it (`<publicBaseUrl>/dashboard/runs/<id>`), and ingress URLs start with
   * it unless `webhookBaseUrl` is given. Default: `http://localhost:<port>`.
   */
  publicBaseUrl?: string;
  /** Base of ingress URLs. Default: `publicBaseUrl`. */
  webhookBaseUrl?: string;
  /** How skills are read from the team's registered repositories; see `createAgentRun` (docs/repositories.md). */
  repositories?: RepositoryReader;
  /** How often factory sources are fetched (docs/repositories.md, "Factories from a repository"). Default 60,000 ms. */
  sourcePollIntervalMs?: number;
  /** Run-state callbacks: where they may go, how they are retried (docs/callbacks.md, "Options"). */
  callbacks?: CallbackOptions;
  /**
   * How long an evaluation claim holds (docs/webhooks.md, "When runs start"): the deliveries a
   * killed server was evaluating are evaluated by another after it. Default 30,000 ms.
   */
  evaluationLeaseMs?: number;
}

export interface ReferenceServer {
  /** Where it listens, e.g. `http://127.0.0.1:8080`. */
  url: string;
  apiKey: string;
  principal: Principal;
  store: Store;
  /** The composition root serving the requests. */
  agentrun: AgentRun;
  worker: Worker;
  server: Server;
  /**
   * Stop with `shutdownGracefully` (docs/operations.md, "Graceful shutdown"): no new connection,
   * `/readyz` 503, requests in flight finish, running executions get `graceMs` (default 0) to
   * finish before they are handed back; what is still open at `timeoutMs` (default `graceMs` + 1 s)
   * is cut; then the store closes.
   */
  close(options?: { graceMs?: number; timeoutMs?: number }): Promise<void>;
}

/**
 * The principal of the bootstrap key: a service account of the default team that may manage
 * factories and API keys (a principal without scopes has the run API and the management reads;
 * `permissions` adds the rest, keys/scopes.ts in core).
 */
export const BOOTSTRAP_PRINCIPAL: Principal = {
  type: 'service_account',
  uid: 'bootstrap',
  display_name: 'Bootstrap key',
  team_uid: 'team-default',
  permissions: ['manage_factory', 'manage_keys'],
};

/**
 * The bootstrap key: a given key is registered once however many servers share the store (a
 * second server, or a restart, finds it there); without one, a new key is minted.
 */
async function bootstrapKey(store: Store, key: string | undefined): Promise<string> {
  if (key === undefined) return createApiKey(store.apiKeys, BOOTSTRAP_PRINCIPAL);
  if (await store.apiKeys.findByHash(sha256Hex(key))) return key;
  try {
    return await createApiKey(store.apiKeys, BOOTSTRAP_PRINCIPAL, { key });
  } catch (error) {
    // Another server registered it between our look and our insert.
    if (await store.apiKeys.findByHash(sha256Hex(key))) return key;
    throw error;
  }
}

/**
 * The reference server (README.md, "Try it"): the whole HTTP surface, the dashboard at
 * `/dashboard`, a worker and the demo executor.
 */
export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const store = options.store ?? createMemoryStore();
  const apiKey = await bootstrapKey(store, options.apiKey);

  // Listen first: the default public URL needs the port. Until the handler exists (a moment), 503.
  let listener: RequestListener = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => listener(req, res));
  // Requests Node's parser refuses (431, 400, unknown methods) get problem documents too.
  handleClientErrors(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  const agentrun = createAgentRun({
    store,
    executor: options.executor ?? demoExecutor(options.demoDurationMs !== undefined ? { durationMs: options.demoDurationMs } : {}),
    // The dashboard is mounted at /dashboard below, createAgentRun's default dashboardPath.
    publicBaseUrl: options.publicBaseUrl ?? `http://localhost:${address.port}`,
    ...(options.webhookBaseUrl !== undefined ? { webhookBaseUrl: options.webhookBaseUrl } : {}),
    ...(options.secretKey !== undefined ? { secretKey: options.secretKey } : {}),
    blobs: options.blobs ?? createMemoryBlobStore(),
    ...(options.repositories !== undefined ? { repositories: options.repositories } : {}),
    ...(options.sourcePollIntervalMs !== undefined ? { sourcePollIntervalMs: options.sourcePollIntervalMs } : {}),
    ...(options.callbacks !== undefined ? { callbacks: options.callbacks } : {}),
    ...(options.evaluationLeaseMs !== undefined ? { evaluation: { leaseMs: options.evaluationLeaseMs } } : {}),
  });
  // The dashboard (docs/dashboard.md) beside the API: /dashboard is its own, every other path agentrun's.
  listener = createNodeListener(composeMounts([agentrun, createDashboard()], (request) => agentrun.fetch(request)));
  // The worker, and with it the evaluation of accepted deliveries (their runs, made after the 202).
  const worker = agentrun.worker(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {});
  worker.start();

  return {
    url: `http://${host}:${address.port}`,
    apiKey,
    principal: BOOTSTRAP_PRINCIPAL,
    store,
    agentrun,
    worker,
    server,
    async close({ graceMs = 0, timeoutMs = graceMs + 1_000 } = {}) {
      await shutdownGracefully({ agentrun, servers: [server], graceMs, timeoutMs });
    },
  };
}
