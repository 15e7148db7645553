import { createServer, type Server } from 'node:http';
import { type AgentRun, AgentRunError, type BlobStore, composeMounts, createAgentRun, type Worker } from '@agentrun/core';
import { problemResponse } from '@agentrun/core/internal';
import { createNodeListener, handleClientErrors, shutdownGracefully } from '@agentrun/node';
import { agentRunOptions, listen, type ProcessOptions, startWorker } from './process-parts.js';
import { SERVER_VERSION } from './server.js';

export interface WorkerProcessOptions extends ProcessOptions {
  port?: number;
  host?: string;
  blobs?: BlobStore;
  /** The API processes' public URL: the `session_link` of the runs this worker starts. */
  publicBaseUrl?: string;
}

export interface WorkerProcess {
  /** Where its probes listen (`/healthz`, `/readyz`). */
  url: string;
  agentrun: AgentRun;
  worker: Worker;
  server: Server;
  /** As the reference server's: executions get `graceMs` to finish, then are handed back; the store closes. */
  close(options?: { graceMs?: number; timeoutMs?: number }): Promise<void>;
}

/**
 * `npm start -- worker` (docs/operations.md, "Worker hosts"): a worker on a shared store and
 * nothing else of the server: no run API, no ingress, no dashboard; on its port only the probes
 * `GET /healthz` and `GET /readyz` (every other path a 404), beside the metrics port when set.
 */
export async function startWorkerProcess(options: WorkerProcessOptions): Promise<WorkerProcess> {
  const agentrun = createAgentRun({
    ...agentRunOptions(options),
    ...(options.publicBaseUrl !== undefined ? { publicBaseUrl: options.publicBaseUrl } : {}),
    ...(options.blobs !== undefined ? { blobs: options.blobs } : {}),
  });
  // The probes only: agentrun.health owns /healthz and /readyz; anything else is a 404 saying why.
  const elsewhere = async (request: Request) =>
    problemResponse(
      new AgentRunError(
        'not_found',
        `${new URL(request.url).pathname} is not served here: a worker process serves only /healthz and /readyz`,
      ),
    );
  const server = createServer(createNodeListener(composeMounts([agentrun.health], elsewhere)));
  handleClientErrors(server);
  const url = await listen(server, options.port, options.host);
  const worker = startWorker(agentrun, options, SERVER_VERSION);
  return {
    url,
    agentrun,
    worker,
    server,
    async close({ graceMs = 0, timeoutMs = graceMs + 1_000 } = {}) {
      await shutdownGracefully({ agentrun, servers: [server], graceMs, timeoutMs });
    },
  };
}
