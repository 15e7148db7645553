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
  const limit = limits.maxBodyBytes;
  let received = 0;
  let settled = false;

  const stop = (): boolean => {
    if (settled) return false;
    settled = true;
    source.off('data', onData);
    source.off('end', onEnd);
    source.off('error', onError);
    source.off('close', onClose);
    source.pause();
    return true;
  };
  const fail = (error: unknown) => {
    if (stop()) sink.fail(error);
  };
  function onData(chunk: Buffer | string) {
    // A string means someone called setEncoding() on the request; re-encoding is the best we can do.
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    received += bytes.byteLength;
    if (limit !== undefined && received > limit) return fail(tooLarge(limit));
    if (!sink.chunk(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength))) source.pause();
  }
  function onEnd() {
    if (stop()) sink.end();
  }
  function onError(error: Error) {
    fail(error);
  }
  function onClose() {
    // 'close' after 'end' finds the body settled already; before it, the client went away.
    fail(new Error('the client disconnected before the request body was complete'));
  }

  return {
    start() {
      if (limit !== undefined && limits.declaredLength !== undefined && limits.declaredLength > limit) return fail(tooLarge(limit));
      // Pause before listening, or adding a 'data' listener would switch the source to flowing mode.
      source.pause();
      source.on('data', onData);
      source.on('end', onEnd);
      source.on('error', onError);
      source.on('close', onClose);
      if (source.readableEnded) onEnd();
      else if (source.destroyed) onClose();
    },
    resume() {
      if (!settled) source.resume();
    },
    stop,
  };
}

const tooLarge = (limit: number) => new AgentRunError('payload_too_large', `the request body is larger than ${limit} bytes`);
