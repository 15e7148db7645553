import type { Readable } from 'node:stream';
import { AgentRunError } from '@agentrun/core';

export interface BodyStreamOptions {
  /** Error the stream once more than this many bytes have arrived (or were declared). */
  maxBodyBytes?: number;
  /** The `Content-Length` the client declared, if any: over the limit, nothing is read at all. */
  declaredLength?: number;
}

/**
 * A Web stream over a Node request body. It is pull-based: the source stays paused until the
 * reader asks for a chunk and is paused again as soon as one is queued, so a slow or absent
 * reader never makes us buffer. Past `maxBodyBytes` it errors with a 413 `AgentRunError` (which
 * `readBodyLimited` passes through) and stops reading; the response then closes the connection
 * (see `mustCloseConnection`) instead of draining whatever the client still sends.
 */
export function requestBodyStream(source: Readable, options: BodyStreamOptions = {}): ReadableStream<Uint8Array> {
  const limit = options.maxBodyBytes;
  let received = 0;
  let settled = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;

  const detach = (): boolean => {
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
    if (detach()) controller.error(error);
  };
  function onData(chunk: Buffer | string) {
    // A string means someone called setEncoding() on the request; re-encoding is the best we can do.
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    received += bytes.byteLength;
    if (limit !== undefined && received > limit) return fail(tooLarge(limit));
    controller.enqueue(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    if ((controller.desiredSize ?? 0) <= 0) source.pause();
  }
  function onEnd() {
    if (detach()) controller.close();
  }
  function onError(error: Error) {
    fail(error);
  }
  function onClose() {
    // 'close' after 'end' finds the stream settled already; before it, the client went away.
    fail(new Error('the client disconnected before the request body was complete'));
  }

  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        if (limit !== undefined && options.declaredLength !== undefined && options.declaredLength > limit) {
          return fail(tooLarge(limit));
        }
        // Pause before listening, or adding a 'data' listener would switch the source to flowing mode.
        source.pause();
        source.on('data', onData);
        source.on('end', onEnd);
        source.on('error', onError);
        source.on('close', onClose);
        if (source.readableEnded) onEnd();
        else if (source.destroyed) onClose();
      },
      pull() {
        source.resume();
      },
      cancel() {
        // The reader gave up (core's own limit, say): stop reading; never drain the rest into memory.
        detach();
      },
    },
    // No read-ahead: a chunk is read from the socket only when the handler asks for one.
    { highWaterMark: 0 },
  );
}

const tooLarge = (limit: number) => new AgentRunError('payload_too_large', `the request body is larger than ${limit} bytes`);
