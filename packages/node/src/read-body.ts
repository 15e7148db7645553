import type { Readable } from 'node:stream';
import { concatBytes } from '@agentrun/core/internal';
import { type BodyLimits, followBody } from './body-source.js';

/**
 * A Node request body read straight into memory, at most `maxBodyBytes` of it: what a
 * `READ_BODY` reader does, with the same limit and failures as `requestBodyStream` but no Web
 * stream in between.
 */
export function readNodeBody(source: Readable, limits: BodyLimits): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const body = followBody(source, limits, {
      chunk(bytes) {
        chunks.push(bytes);
        size += bytes.byteLength;
        return true;
      },
      end: () => resolve(concatBytes(chunks, size)),
      fail: reject,
    });
    body.start();
    body.resume();
  });
}
