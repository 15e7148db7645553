import type { Readable } from 'node:stream';
import { concatBytes } from '@agentrun/core/internal';
import { type BodyLimits, type BodySink, followBody } from './body-source.js';

/**
 * A Node request body read straight into memory, at most `maxBodyBytes` of it: what a
 * `READ_BODY` reader does, with the same limit and failures as `requestBodyStream` but no Web
 * stream in between.
 */
export function readNodeBody(source: Readable, limits: BodyLimits): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const body = followBody(source, limits, new BufferSink(resolve, reject));
    body.start();
    body.resume();
  });
}

/** The chunks of a body, joined once it ends: a class, so a read costs one object, not a closure per member. */
class BufferSink implements BodySink {
  readonly #chunks: Uint8Array[] = [];
  #size = 0;
  readonly #resolve: (bytes: Uint8Array) => void;
  readonly #reject: (error: unknown) => void;

  constructor(resolve: (bytes: Uint8Array) => void, reject: (error: unknown) => void) {
    this.#resolve = resolve;
    this.#reject = reject;
  }

  chunk(bytes: Uint8Array): boolean {
    this.#chunks.push(bytes);
    this.#size += bytes.byteLength;
    return true;
  }

  end(): void {
    this.#resolve(concatBytes(this.#chunks, this.#size));
  }

  fail(error: unknown): void {
    this.#reject(error);
  }
}
