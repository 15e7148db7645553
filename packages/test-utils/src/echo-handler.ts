import { createHash } from 'node:crypto';
import {
  AgentRunError,
  type AgentRunEvents,
  type AgentRunHandler,
  type ControlService,
  isAgentRunError,
  type RunService,
} from '@agentrun/core';
import { problemResponse, readBodyLimited } from '@agentrun/core/internal';

/** What the echo handler saw of one request; `settled` resolves once it is done with the body. */
export interface Seen {
  request: Request;
  settled: Promise<void>;
}

export interface EchoHandler extends AgentRunHandler {
  readonly seen: Seen[];
  /** Releases the second half of the `/api/v1/stream` body. */
  release(): void;
  /** Resolves when the latest `/api/v1/endless` body was cancelled. */
  endlessCancelled(): Promise<void>;
  /** Bytes the latest `/api/v1/endless` body produced. */
  endlessProduced(): number;
}

export interface Echo {
  method: string;
  path: string;
  search: string;
  headers: Record<string, string>;
  length: number;
  sha256: string;
}

export const STREAM_FIRST = 'first chunk\n';
export const STREAM_SECOND = 'second chunk\n';

/**
 * A stand-in for the core handler that owns `/api/v1` like the real one and reads bodies the way
 * it does (`readBodyLimited`, so 413s come from core code). Routes, relative to the mount point:
 * - `/api/v1/echo`: method, path, query, headers and the body's length and SHA-256, as JSON;
 * - `/api/v1/cookies`: 201 with two `Set-Cookie` headers and a custom content type;
 * - `/api/v1/stream`: a body whose second chunk waits for `release()`, proving it is streamed;
 * - `/api/v1/endless`: a body that never ends, made on demand, for backpressure and cancellation;
 * - `/api/v1/wait`: answers 204 only once the request signal aborts.
 */
export function echoHandler(options: { bodyLimit?: number } = {}): EchoHandler {
  const bodyLimit = options.bodyLimit ?? 64 * 1024 * 1024;
  const seen: Seen[] = [];
  let release!: () => void;
  let gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let produced = 0;
  let cancelled = deferred();

  const route = async (request: Request, url: URL): Promise<Response> => {
    switch (url.pathname) {
      case '/api/v1/echo': {
        const body = await readBodyLimited(request, bodyLimit);
        const echo: Echo = {
          method: request.method,
          path: url.pathname,
          search: url.search,
          headers: Object.fromEntries(request.headers),
          length: body.byteLength,
          sha256: createHash('sha256').update(body).digest('hex'),
        };
        return Response.json(echo);
      }
      case '/api/v1/cookies': {
        const headers = new Headers({ 'content-type': 'text/x-agentrun; charset=utf-8', 'x-agentrun': 'yes' });
        headers.append('set-cookie', 'a=1; Path=/; HttpOnly');
        headers.append('set-cookie', 'b=2; Path=/; Secure');
        return new Response('created', { status: 201, headers });
      }
      case '/api/v1/stream': {
        const encoder = new TextEncoder();
        const waitFor = gate;
        const body = new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(encoder.encode(STREAM_FIRST));
            await waitFor;
            controller.enqueue(encoder.encode(STREAM_SECOND));
            controller.close();
          },
        });
        return new Response(body, { headers: { 'content-type': 'text/plain; charset=utf-8' } });
      }
      case '/api/v1/endless': {
        produced = 0;
        cancelled = deferred();
        const done = cancelled;
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            produced += 64 * 1024;
            controller.enqueue(new Uint8Array(64 * 1024));
          },
          cancel() {
            done.resolve();
          },
        });
        return new Response(body, { headers: { 'content-type': 'application/octet-stream' } });
      }
      case '/api/v1/wait': {
        const { signal } = request;
        await new Promise((resolve) => (signal.aborted ? resolve(undefined) : signal.addEventListener('abort', resolve)));
        return new Response(null, { status: 204 });
      }
      default:
        throw new AgentRunError('not_found', `no route for ${url.pathname}`);
    }
  };

  const handler = async (request: Request): Promise<Response> => {
    let settle!: () => void;
    seen.push({ request, settled: new Promise<void>((resolve) => (settle = resolve)) });
    try {
      return await route(request, new URL(request.url));
    } catch (error) {
      if (isAgentRunError(error)) return problemResponse(error);
      throw error;
    } finally {
      settle();
    }
  };

  return Object.assign(handler, {
    fetch: handler,
    app: {} as AgentRunHandler['app'],
    owns: (pathname: string) => pathname === '/api/v1' || pathname.startsWith('/api/v1/'),
    service: {} as RunService,
    control: {} as ControlService,
    events: {} as AgentRunEvents,
    seen,
    endlessCancelled: () => cancelled.promise,
    endlessProduced: () => produced,
    release: () => {
      release();
      gate = new Promise<void>((resolve) => {
        release = resolve;
      });
    },
  });
}

/** `Promise.withResolvers`, which the ES2023 lib the repo compiles against (tsconfig.base.json) does not declare. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
