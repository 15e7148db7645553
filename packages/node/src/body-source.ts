import type { Readable } from 'node:stream';
import { AgentRunError } from '@agentrun/core';

export interface BodyLimits {
  /** Fail once more than this many bytes have arrived (or were declared): a 413 `AgentRunError`. */
  maxBodyBytes?: number;
  /** The `Content-Length` the client declared, if any: over the limit, nothing is read at all. */
  declaredLength?: number;
}

/** Where a followed body goes. `chunk` answers whether more is wanted now (false pauses the source). */
export interface BodySink {
  chunk(bytes: Uint8Array): boolean;
  end(): void;
  fail(error: unknown): void;
}

export interface FollowedBody {
  /** Start listening (paused); the sink hears nothing until `resume`. */
  start(): void;
  /** Let bytes flow until the sink asks for a pause. */
  resume(): void;
  /** Stop listening and pause the source (the reader gave up); false if it had already settled. */
  stop(): boolean;
}

/**
 * Follow a Node request body into a sink, enforcing the limit as bytes arrive: past it, the sink
 * fails with a 413 and reading stops, so the rest is never buffered (the response then closes the
 * connection, see `mustCloseConnection`, instead of draining what the client still sends). The
 * sink hears exactly one of `end` or `fail`. Shared by the Web stream and the direct reader.
 */
export function followBody(source: Readable, limits: BodyLimits, sink: BodySink): FollowedBody {
  return new NodeBodyFollower(source, limits, sink);
}

/**
 * A class rather than closures: one object and four bound listeners per request body, where a
 * closure per listener and helper costs measurably on every delivery (bench/README.md, "What was
 * tried").
 */
class NodeBodyFollower implements FollowedBody {
  readonly #source: Readable;
  readonly #limits: BodyLimits;
  readonly #sink: BodySink;
  #received = 0;
  #settled = false;
  readonly #onData: (chunk: Buffer | string) => void;
  readonly #onEnd: () => void;
  readonly #onError: (error: Error) => void;
  readonly #onClose: () => void;

  constructor(source: Readable, limits: BodyLimits, sink: BodySink) {
    this.#source = source;
    this.#limits = limits;
    this.#sink = sink;
    this.#onData = this.#data.bind(this);
    this.#onEnd = this.#end.bind(this);
    this.#onError = this.#fail.bind(this);
    this.#onClose = this.#close.bind(this);
  }

  start(): void {
    const limit = this.#limits.maxBodyBytes;
    const declared = this.#limits.declaredLength;
    if (limit !== undefined && declared !== undefined && declared > limit) {
      this.#fail(tooLarge(limit));
      return;
    }
    const source = this.#source;
    // Pause before listening, or adding a 'data' listener would switch the source to flowing mode.
    source.pause();
    source.on('data', this.#onData);
    source.on('end', this.#onEnd);
    source.on('error', this.#onError);
    source.on('close', this.#onClose);
    if (source.readableEnded) this.#end();
    else if (source.destroyed) this.#close();
  }

  resume(): void {
    if (!this.#settled) this.#source.resume();
  }

  stop(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    const source = this.#source;
    source.off('data', this.#onData);
    source.off('end', this.#onEnd);
    source.off('error', this.#onError);
    source.off('close', this.#onClose);
    source.pause();
    return true;
  }

  #fail(error: unknown): void {
    if (this.stop()) this.#sink.fail(error);
  }

  #data(chunk: Buffer | string): void {
    // A string means someone called setEncoding() on the request; re-encoding is the best we can do.
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.#received += bytes.byteLength;
    const limit = this.#limits.maxBodyBytes;
    if (limit !== undefined && this.#received > limit) {
      this.#fail(tooLarge(limit));
      return;
    }
    if (!this.#sink.chunk(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength))) this.#source.pause();
  }

  #end(): void {
    if (this.stop()) this.#sink.end();
  }

  #close(): void {
    // 'close' after 'end' finds the body settled already; before it, the client went away.
    this.#fail(new Error('the client disconnected before the request body was complete'));
  }
}

const tooLarge = (limit: number) => new AgentRunError('payload_too_large', `the request body is larger than ${limit} bytes`);
