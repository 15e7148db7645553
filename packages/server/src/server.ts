import { createServer, type RequestListener, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { type AgentRun, type BlobStore, composeMounts, createAgentRun, type Principal, type Store, type Worker } from '@agentrun/core';
import { createDashboard } from '@agentrun/dashboard';
import { createNodeListener, handleClientErrors, shutdownGracefully } from '@agentrun/node';
import { createMemoryBlobStore, createMemoryStore } from '@agentrun/store-memory';
import { BOOTSTRAP_PRINCIPAL, type BootstrapKey, bootstrapKey } from './bootstrap-key.js';
import { agentRunOptions, listen, type ProcessOptions, startWorker } from './process-parts.js';

/** The reference server's options: a worker process's (process-parts.ts), a store of its own by default, and the HTTP surface's. */
export interface ReferenceServerOptions extends Omit<ProcessOptions, 'store'> {
  /** Port to listen on; 0 picks a free one. Default 8080. */
  port?: number;
  host?: string;
  /** The bootstrap API key, registered once; when absent, one is made once per store (bootstrap-key.ts). */
  apiKey?: string;
  store?: Store;
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
  /** How often factory sources are fetched (docs/repositories.md, "Factories from a repository"). Default 60,000 ms. */
  sourcePollIntervalMs?: number;
}

/** The server's version, for the workers list: its package's (src/ and dist/ are both one level below it). */
export const SERVER_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

export interface ReferenceServer {
  /** Where it listens, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** The bootstrap key as this start found it: made now, given, made by an earlier start, or revoked. */
  bootstrapKey: BootstrapKey;
  /**
   * The bootstrap key itself, when this start made it or was given it; reading it after an earlier
   * start made it (only its prefix is kept) throws.
   */
  readonly apiKey: string;
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
 * The reference server (docs/server.md): the whole HTTP surface, the dashboard at
 * `/dashboard`, a worker and the demo executor.
 */
export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const store = options.store ?? createMemoryStore();
  const bootstrap = await bootstrapKey(store, options.apiKey);

  // Listen first: the default public URL needs the port. Until the handler exists (a moment), 503.
  let listener: RequestListener = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => listener(req, res));
  // Requests Node's parser refuses (431, 400, unknown methods) get problem documents too.
  handleClientErrors(server);
  const url = await listen(server, options.port, options.host);

  const agentrun = createAgentRun({
    ...agentRunOptions({ ...options, store }),
    // The dashboard is mounted at /dashboard below, createAgentRun's default dashboardPath.
    publicBaseUrl: options.publicBaseUrl ?? `http://localhost:${new URL(url).port}`,
    ...(options.webhookBaseUrl !== undefined ? { webhookBaseUrl: options.webhookBaseUrl } : {}),
    blobs: options.blobs ?? createMemoryBlobStore(),
    ...(options.sourcePollIntervalMs !== undefined ? { sourcePollIntervalMs: options.sourcePollIntervalMs } : {}),
  });
  // The dashboard (docs/dashboard.md) beside the API: /dashboard is its own, every other path agentrun's.
  listener = createNodeListener(composeMounts([agentrun, createDashboard()], (request) => agentrun.fetch(request)));
  // The worker, and with it the evaluation of accepted deliveries (their runs, made after the 202).
  const worker = startWorker(agentrun, { ...options, store }, SERVER_VERSION);

  return {
    url,
    bootstrapKey: bootstrap,
    get apiKey() {
      if ('key' in bootstrap) return bootstrap.key;
      throw new Error(`the bootstrap key is not known to this start (${bootstrap.source}); pass apiKey to use one`);
    },
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
