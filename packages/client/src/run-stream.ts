import type { AgentRunClient } from './client.js';
import { AgentRunError, APIConnectionError, APIUserAbortError } from './errors.js';
import type { ResponseOf } from './operations.js';
import { retryDelayMs } from './retry.js';
import { sleep } from './sleep.js';
import { SseParser } from './sse.js';

/**
 * `client.runs.stream()`: a run's transcript followed live over the server's Server-Sent Events
 * (docs/run-api.md, "Following a run live"; docs/client.md, "Following a run: stream()").
 */

/** One event of a run's transcript: the item of a `listRunEvents` page, and of the live stream. */
export type RunEvent = ResponseOf<'listRunEvents'>['events'][number];

export interface StreamOptions {
  /** Start after this event ID (0, the default, streams the whole transcript). */
  after?: number;
  /** Ends the stream: the iteration throws `APIUserAbortError`. */
  signal?: AbortSignal;
  /** Reconnections after a dropped connection with no event received since; default the client's `maxRetries`. */
  maxRetries?: number;
  /** How long a connection may stay silent before it counts as dropped (the server sends a heartbeat every 15 s); default the client's `timeoutMs`. */
  idleTimeoutMs?: number;
}

/**
 * Every event of the run after `after`, as the server sends them, until the server ends the
 * stream (the run finished). A dropped connection is opened again with `Last-Event-ID` set to the
 * last event received, and events at or before it are skipped, so none is repeated or missed.
 * Leaving the loop (`break`, `return`, a throw) closes the connection.
 */
export async function* streamRunEvents(
  client: AgentRunClient,
  runId: string,
  options: StreamOptions = {},
): AsyncGenerator<RunEvent, void, undefined> {
  const maxRetries = options.maxRetries ?? client.maxRetries;
  const idleTimeoutMs = options.idleTimeoutMs ?? client.timeoutMs;
  let lastId = options.after;
  let retriesLeft = maxRetries;
  for (;;) {
    const connection = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, connection.signal]) : connection.signal;
    let idleTimer: ReturnType<typeof setTimeout> | undefined;
    const armIdle = () => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => connection.abort(), idleTimeoutMs);
    };
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (lastId !== undefined) headers['last-event-id'] = String(lastId);
      // Errors before the first byte (404, 401, …) are thrown as the client's error classes,
      // after the client's own retries for retryable ones.
      const response = await client.requestResponse('listRunEvents', { params: { runId }, headers, signal, maxRetries });
      const type = response.headers.get('content-type') ?? '';
      if (!type.startsWith('text/event-stream') || !response.body) {
        await response.body?.cancel();
        throw new AgentRunError(`run ${runId}: asked for text/event-stream, the server answered ${type || 'no content type'}`);
      }
      reader = response.body.getReader();
      const decoder = new TextDecoder();
      const parser = new SseParser();
      // A body read does not always end when its request's signal aborts (a handler called in
      // process may just stop writing), so each read races the signal.
      const aborted = new Promise<never>((_, reject) => {
        const fail = () => reject(new DOMException('The event stream was aborted', 'AbortError'));
        if (signal.aborted) fail();
        else signal.addEventListener('abort', fail, { once: true });
      });
      aborted.catch(() => undefined);
      armIdle();
      for (;;) {
        const { done, value } = await Promise.race([reader.read(), aborted]);
        if (done) return; // The server ended the stream: the run finished.
        armIdle();
        for (const sse of parser.push(decoder.decode(value, { stream: true }))) {
          const event = parseEvent(runId, sse.data);
          if (lastId !== undefined && event.id <= lastId) continue;
          if (options.signal?.aborted) throw new APIUserAbortError();
          lastId = event.id;
          retriesLeft = maxRetries;
          yield event;
        }
      }
    } catch (error) {
      if (options.signal?.aborted) throw new APIUserAbortError();
      // Only a connection lost while reading (or silent too long) is resumed here: errors of
      // opening it were retried by the client already, and a bad event will not get better.
      if (reader === undefined || error instanceof AgentRunError) throw error;
      if (retriesLeft <= 0)
        throw new APIConnectionError(`run ${runId}: the event stream dropped and could not be resumed`, { cause: error });
    } finally {
      clearTimeout(idleTimer);
      connection.abort();
      void reader?.cancel().catch(() => undefined);
    }
    await sleep(retryDelayMs(retriesLeft, maxRetries, undefined), options.signal);
    retriesLeft--;
  }
}

const parseEvent = (runId: string, data: string): RunEvent => {
  let event: unknown;
  try {
    event = JSON.parse(data);
  } catch {
    throw new AgentRunError(`run ${runId}: an event stream's data is not JSON: ${data.slice(0, 200)}`);
  }
  if (typeof event !== 'object' || event === null || typeof (event as { id?: unknown }).id !== 'number') {
    throw new AgentRunError(`run ${runId}: an event stream's data is not a run event: ${data.slice(0, 200)}`);
  }
  return event as RunEvent;
};
