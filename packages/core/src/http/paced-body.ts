// A response body produced only as fast as the client reads it (docs/run-api.md, "Following a run
// live", "Slow readers"): the live event stream and the transcript page. Their text comes from
// the store; read eagerly, a client that never reads makes the server hold the whole transcript.

/** How long bodies pace themselves: `createAgentRun({ streamLimits })` (docs/run-api.md, "Slow readers"). */
export interface StreamLimits {
  /** Bytes a body keeps queued for its client before it stops reading the store. Default 256 KiB. */
  queueBytes: number;
  /**
   * How long a body's queue may stay full (its client reads nothing while there is more to send)
   * before the client is dropped: the body errors and the connection is closed. Default 60 s.
   */
  dropStalledAfterMs: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = { queueBytes: 256 * 1024, dropStalledAfterMs: 60_000 };

/**
 * Why a paced body ended: its client read nothing for `dropStalledAfterMs` with the queue full. An
 * adapter that sees it closes the connection without reporting a failure (`isStalledReaderDrop`).
 */
export class StalledReaderDropped extends Error {
  override readonly name = 'StalledReaderDropped';
  constructor(readonly stalledMs: number) {
    super(`the client read nothing for ${stalledMs} ms with the response queue full: dropped`);
  }
}

/** Whether a body failed only because its client was dropped for not reading (not a server fault). */
/** By name, not class: an adapter may meet a body made by another copy of core. */
export const isStalledReaderDrop = (error: unknown): boolean => error instanceof Error && error.name === 'StalledReaderDropped';

/**
 * The text `source` produces, as a byte stream pulled by its consumer: the source is asked for its
 * next piece only while fewer than `queueBytes` are queued, so a consumer that stops reading stops
 * the source (and its store reads). A queue that stays full for `dropStalledAfterMs` errors the
 * stream with `StalledReaderDropped`. The signal handed to `source` aborts when the consumer
 * cancels or is dropped, so a source waiting for something (a notification) can stop at once;
 * the generator is then returned, which runs its `finally` blocks.
 */
export function pacedBody(
  source: (signal: AbortSignal) => AsyncGenerator<string, void, undefined>,
  limits: StreamLimits = DEFAULT_STREAM_LIMITS,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const stopped = new AbortController();
  const pieces = source(stopped.signal);
  let stallTimer: ReturnType<typeof setTimeout> | undefined;
  const stop = (reason: unknown) => {
    clearTimeout(stallTimer);
    if (stopped.signal.aborted) return;
    stopped.abort(reason);
    // Queued behind a step in progress, which the abort ends soon; at once for a suspended one.
    void pieces.return(undefined).catch(() => {});
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        // The consumer made room: it is reading.
        clearTimeout(stallTimer);
        stallTimer = undefined;
        let next: IteratorResult<string, void>;
        try {
          next = await pieces.next();
        } catch (error) {
          stop(error);
          throw error;
        }
        if (stopped.signal.aborted) return;
        if (next.done) {
          stop(undefined);
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(next.value));
        // Full: no pull until the consumer reads. If it reads nothing for the whole time, drop it.
        if ((controller.desiredSize ?? 1) <= 0) {
          stallTimer = setTimeout(() => {
            const dropped = new StalledReaderDropped(limits.dropStalledAfterMs);
            stop(dropped);
            controller.error(dropped);
          }, limits.dropStalledAfterMs);
        }
      },
      cancel(reason) {
        stop(reason);
      },
    },
    { highWaterMark: limits.queueBytes, size: (chunk) => chunk.byteLength },
  );
}
