/** A run's events as a client following it live gets them (`Accept: text/event-stream`). */
export interface FollowedStream {
  /** Every event so far once one matches `done` (waiting for it). */
  until(done: (event: StreamedEvent) => boolean): Promise<StreamedEvent[]>;
  close(): void;
}

interface StreamedEvent {
  id: number;
  type: string;
  data: unknown;
}

export function followStream(
  api: (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Response>,
  runId: string,
): FollowedStream {
  const events: StreamedEvent[] = [];
  const waiters: { done: (e: StreamedEvent) => boolean; resolve: (all: StreamedEvent[]) => void }[] = [];
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let closed = false;
  const read = async () => {
    const res = await api('GET', `/agent/runs/${runId}/events`, undefined, { accept: 'text/event-stream' });
    reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    while (!closed) {
      const chunk = await reader.read();
      if (chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block
          .split('\n')
          .filter((l) => l.startsWith('data: '))
          .map((l) => l.slice(6))
          .join('\n');
        if (data === '') continue;
        const event = JSON.parse(data) as StreamedEvent;
        events.push(event);
        for (const w of [...waiters]) {
          if (w.done(event)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve([...events]);
          }
        }
      }
    }
  };
  const reading = read().catch(() => {});
  return {
    until(done) {
      if (events.some(done)) return Promise.resolve([...events]);
      return new Promise((resolve) => waiters.push({ done, resolve }));
    },
    close() {
      closed = true;
      void reader?.cancel().catch(() => {});
      void reading;
    },
  };
}
