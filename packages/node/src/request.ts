import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { AgentRunError } from '@agentrun/core';
import { forwardToReal, MOUNT_PATH, READ_BODY, REMOTE_ADDRESS } from '@agentrun/core/internal';
import type { BodyLimits } from './body-source.js';
import { requestBodyStream } from './body-stream.js';
import { declaredLength, declaresBody } from './headers.js';
import { NodeHeaders } from './node-headers.js';
import { readNodeBody } from './read-body.js';
import { clientGone, disconnectSignal } from './signals.js';

export interface ToWebRequestOptions {
  /** Absolute URL of the request; its path is relative to where agentrun is mounted. */
  url: string;
  /** Error the body once more than this many bytes arrive (answered 413 by core). */
  maxBodyBytes?: number;
  /** Also abort the request's signal when the client goes away before this response is finished. */
  response?: ServerResponse;
  /** Also abort the request's signal on this one. */
  signal?: AbortSignal;
  /** Read the body from this stream instead of `req` (a framework may hand over a wrapped one). */
  body?: Readable;
  /** The path prefix the host mounted agentrun under (`/agents`), stripped from `url`: printed URLs include it. */
  mountPath?: string;
}

/**
 * Fetch refuses these methods outright: no real `Request` can carry them. They still reach the
 * handler, which reads only `method` and `url` to route them: agentrun answers 405 with the
 * path's `Allow` (or 404), as for any method a path lacks (RFC 9110 §15.5.6). Only a handler that
 * needs the real `Request` for one meets `forbiddenMethod`: a 501, since no fetch handler can
 * implement it.
 */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

const forbiddenMethod = (method: string) =>
  new AgentRunError('not_implemented', `${method} cannot be handed to a fetch handler as a Request`);

/** Whether `error` is the bridge's refusal to make a real `Request` of a method fetch refuses (answered as it says). */
export const isForbiddenMethodError = (error: unknown): error is AgentRunError =>
  error instanceof AgentRunError && error.code === 'not_implemented';

const unusable = () => new TypeError('Body is unusable: Body has already been read');

/**
 * A Web `Request` over a Node request that costs almost nothing until it is used, after Hono's
 * Node server: `method`, `url`, `headers` and `signal` are its own (headers and signal made on
 * first use), and core reads the body through `READ_BODY`, straight from the socket with the
 * limit enforced as bytes arrive. Any other member (`body`, `text()`, `clone()`, …) makes the
 * real `Request` (over a pull-based Web stream of the body) and is answered by it. Its prototype
 * chain runs through `Request.prototype`, so `instanceof Request` holds.
 *
 * `url` is returned as given, not re-serialised by the URL parser as a real `Request` would.
 */
class NodeRequest {
  readonly method: string;
  readonly url: string;
  readonly #req: IncomingMessage;
  readonly #options: ToWebRequestOptions;
  #headers: NodeHeaders | undefined;
  #signal: AbortSignal | undefined;
  #real: Request | undefined;
  /** The body was read through READ_BODY: nothing is left for a stream. */
  #consumed = false;

  constructor(req: IncomingMessage, method: string, options: ToWebRequestOptions) {
    this.#req = req;
    this.method = method;
    this.url = options.url;
    this.#options = options;
  }

  /** See `MOUNT_PATH` in core: where the host mounted agentrun. */
  get [MOUNT_PATH](): string | undefined {
    return this.#options.mountPath;
  }

  /** See `REMOTE_ADDRESS` in core: the socket's peer, as the delivery log keeps it. */
  get [REMOTE_ADDRESS](): string | undefined {
    return this.#req.socket?.remoteAddress;
  }

  /** Answers `get` from the raw headers; the real `Headers` is made on first use of anything else (see `NodeHeaders`). */
  get headers(): Headers {
    this.#headers ??= new NodeHeaders(this.#req);
    return this.#headers as unknown as Headers;
  }

  /** Aborts when the client disconnects mid-body, mid-response (with `response`), or on `signal`. */
  get signal(): AbortSignal {
    if (this.#signal === undefined) {
      const req = this.#req;
      const controller = new AbortController();
      const abortIfIncomplete = () => {
        if (!req.complete) controller.abort(clientGone());
      };
      if (req.destroyed) abortIfIncomplete();
      else req.once('close', abortIfIncomplete);
      const others = [this.#options.signal, this.#options.response && disconnectSignal(this.#options.response)];
      const signals = [controller.signal, ...others.filter((s): s is AbortSignal => s !== undefined)];
      this.#signal = signals.length === 1 ? controller.signal : AbortSignal.any(signals);
    }
    return this.#signal;
  }

  /** Core's body reader (see `READ_BODY`): straight from the socket, limited to the smaller limit. */
  [READ_BODY](limit: number): Promise<Uint8Array> | undefined {
    if (this.#real !== undefined) return undefined;
    if (this.#consumed) return Promise.reject(unusable());
    this.#consumed = true;
    if (!this.#hasBody()) return Promise.resolve(new Uint8Array(0));
    const max = this.#options.maxBodyBytes;
    return readNodeBody(this.#options.body ?? this.#req, this.#limits(max === undefined ? limit : Math.min(max, limit)));
  }

  /** The real `Request`, made on first use of anything else. */
  real(): Request {
    if (this.#real !== undefined) return this.#real;
    if (FORBIDDEN_METHODS.has(this.method)) throw forbiddenMethod(this.method);
    this.#headers ??= new NodeHeaders(this.#req);
    const headers = this.#headers.real();
    const init: RequestInit & { duplex?: 'half' } = { method: this.method, headers, signal: this.signal };
    if (this.#hasBody()) {
      init.body = this.#consumed
        ? new ReadableStream({ start: (c) => c.close() })
        : requestBodyStream(this.#options.body ?? this.#req, this.#limits(this.#options.maxBodyBytes));
      // Required by fetch for a streaming body: the request is sent (here: read) before any response.
      init.duplex = 'half';
    }
    const real = new Request(this.url, init);
    // Read through READ_BODY already: make the real one say so (bodyUsed, and a TypeError on reading).
    if (this.#consumed && real.body) void real.body.getReader().read();
    this.#real = real;
    return real;
  }

  #hasBody(): boolean {
    return this.method !== 'GET' && this.method !== 'HEAD' && declaresBody(this.#req);
  }

  #limits(maxBodyBytes: number | undefined): BodyLimits {
    const limits: BodyLimits = {};
    if (maxBodyBytes !== undefined) limits.maxBodyBytes = maxBodyBytes;
    const length = declaredLength(this.#req);
    if (length !== undefined) limits.declaredLength = length;
    return limits;
  }
}

// Every other member of Request (body, text(), clone(), …) goes to the real one.
forwardToReal(NodeRequest, Request);

/**
 * A Web `Request` over a Node request, without buffering (see `NodeRequest`). A method fetch
 * cannot represent (`TRACE`) is carried as far as `method` and `url` go; anything more throws a
 * 501 `AgentRunError` (see `FORBIDDEN_METHODS`).
 */
export function toWebRequest(req: IncomingMessage, options: ToWebRequestOptions): Request {
  const method = (req.method ?? 'GET').toUpperCase();
  return new NodeRequest(req, method, options) as unknown as Request;
}
