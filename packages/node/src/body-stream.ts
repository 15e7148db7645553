import type { Readable } from 'node:stream';
import { type BodyLimits, followBody } from './body-source.js';

export type BodyStreamOptions = BodyLimits;

/**
 * A Web stream over a Node request body. It is pull-based: the source stays paused until the
 * reader asks for a chunk and is paused again as soon as one is queued, so a slow or absent
 * reader never makes us buffer. Past `maxBodyBytes` it errors with a 413 `AgentRunError` (which
 * `readBodyLimited` passes through) and stops reading.
 */
export function requestBodyStream(source: Readable, options: BodyStreamOptions = {}): ReadableStream<Uint8Array> {
  let body!: ReturnType<typeof followBody>;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        body = followBody(source, options, {
          chunk(bytes) {
            controller.enqueue(bytes);
            return (controller.desiredSize ?? 0) > 0;
          },
          end: () => controller.close(),
          fail: (error) => controller.error(error),
        });
        body.start();
      },
      pull() {
        body.resume();
      },
      cancel() {
        // The reader gave up (core's own limit, say): stop reading; never drain the rest into memory.
        body.stop();
      },
    },
    // No read-ahead: a chunk is read from the socket only when the handler asks for one.
    { highWaterMark: 0 },
  );
}
