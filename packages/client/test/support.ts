import { type ReferenceServer, startReferenceServer } from '@agentrun/server';
import { AgentRunClient, type ClientOptions, type Fetch } from '../src/index.js';

/**
 * A reference server on a memory store (port 0) whose worker never finishes a run, so runs stay
 * cancellable; and clients calling its handler in process (`agentrun.fetch`) or over HTTP.
 */
export const startServer = (): Promise<ReferenceServer> =>
  startReferenceServer({ port: 0, demoDurationMs: 3_600_000, secretKey: new Uint8Array(32).fill(7) });

/** Calls the core handler directly, recording each request it passes on. */
export const inProcessFetch = (server: ReferenceServer, seen: Request[] = []): Fetch => {
  return async (input, init) => {
    const request = new Request(input, init);
    seen.push(request.clone());
    return server.agentrun.fetch(request);
  };
};

export const clientFor = (server: ReferenceServer, options: Partial<ClientOptions> = {}): AgentRunClient =>
  new AgentRunClient({ apiKey: server.apiKey, baseURL: 'http://agentrun.test', fetch: inProcessFetch(server), ...options });
