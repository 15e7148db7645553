/**
 * The server side of the slow-readers test (test/hostile/slow-readers.test.ts), in a process of
 * its own so that its resident memory is the server's alone: agentrun on the memory store, or on
 * PostgreSQL (DATABASE_URL, AGENTRUN_DB_SCHEMA), served by @agentrun/node on 127.0.0.1, with one
 * run whose transcript is filled directly through the store's `runEvents` port. Prints one line
 * `slow-reader-ready <json>` (port, API key, run id) once it listens.
 *
 * `GET /__stats` (outside agentrun) answers `{ open, served, eventsRead, heldBytes }`: responses
 * of agentrun still open, all it started, the events the store handed out to them, and what
 * JavaScript holds; with `?gc=1` it collects garbage first (node --expose-gc), so that this and the
 * resident memory the test reads from /proc/<pid>/status next are what is still held.
 *
 * Env: SLOW_STORE (memory | postgres), SLOW_EVENTS, SLOW_EVENT_CHARS, SLOW_DROP_MS (streamLimits'
 * dropStalledAfterMs).
 */
import { createServer, type ServerResponse } from 'node:http';
import { createAgentRun, createApiKey, type Store } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { createNodeListener } from '@agentrun/node';
import { createMemoryStore } from '@agentrun/store-memory';
import { createPostgresStore } from '../../../packages/store-postgres/src/index.js';

export interface SlowReaderServerReady {
  port: number;
  key: string;
  runId: string;
}

export interface SlowReaderStats {
  open: number;
  served: number;
  /** Events the store handed out since the server listens (filling is not counted). */
  eventsRead: number;
  /** What JavaScript holds (V8's heap in use and memory outside it, buffers among it), in bytes. */
  heldBytes: number;
}

const must = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const store: Store =
  must('SLOW_STORE') === 'memory'
    ? createMemoryStore()
    : createPostgresStore({ connectionString: must('DATABASE_URL'), schema: must('AGENTRUN_DB_SCHEMA') });
const agentrun = createAgentRun({
  store,
  streamLimits: { dropStalledAfterMs: Number(must('SLOW_DROP_MS')) },
  onError: (error) => console.error('agentrun error', error),
});
const principal = testPrincipal();
const key = await createApiKey(store.apiKeys, principal);
const { run_id: runId } = (await agentrun.services.runs.create(principal, { prompt: 'a run with a long transcript' })).body;

// The transcript: big events in few store calls, so that 100 MB goes in within seconds.
const events = Number(must('SLOW_EVENTS'));
const text = 'x'.repeat(Number(must('SLOW_EVENT_CHARS')));
const BATCH = 250;
for (let done = 0; done < events; done += BATCH) {
  const count = Math.min(BATCH, events - done);
  const at = new Date().toISOString();
  await store.runEvents.append(
    runId,
    Array.from({ length: count }, () => ({ at, type: 'output' as const, data: { text } })),
  );
}

let open = 0;
let served = 0;
let eventsRead = 0;
const list = store.runEvents.list.bind(store.runEvents);
store.runEvents.list = async (id, query) => {
  const page = await list(id, query);
  eventsRead += page.length;
  return page;
};
const listener = createNodeListener(agentrun);
const server = createServer((req, res: ServerResponse) => {
  if (req.url?.startsWith('/__stats')) {
    if (req.url.includes('gc=1')) global.gc?.();
    const { heapUsed, external } = process.memoryUsage();
    const stats: SlowReaderStats = { open, served, eventsRead, heldBytes: heapUsed + external };
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(stats));
    return;
  }
  open++;
  served++;
  res.once('close', () => {
    open--;
  });
  listener(req, res);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const ready: SlowReaderServerReady = { port: typeof address === 'object' && address ? address.port : 0, key, runId };
  console.log(`slow-reader-ready ${JSON.stringify(ready)}`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close();
  void Promise.resolve(store.close?.()).finally(() => process.exit(0));
});
