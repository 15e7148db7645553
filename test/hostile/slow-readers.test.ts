import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ManagedProcess } from '../../packages/store-postgres/test/support/processes.js';
import type { SlowReaderServerReady, SlowReaderStats } from './support/slow-reader-server.js';
import { HOSTILE_STORES, storeFor } from './support/stores.js';

/**
 * Clients that never read. A server that read a whole transcript into the stream's queue would
 * hold ~160 MB for each such client of a 164 MB transcript, and build the HTML transcript of a
 * 10,000 × 16 KB run as one 165 MB string. So both bodies are pulled by their client (packages/core/src/http/
 * paced-body.ts): the store is read only while a client's queue (256 KiB) has room, a client whose
 * queue stays full for `dropStalledAfterMs` is dropped, and the transcript page holds 200 events
 * (docs/run-api.md, "Slow readers").
 *
 * The server runs in a child process (support/slow-reader-server.ts) with a 100 MB transcript
 * (9,999 events of 10,000 characters); 50 event-stream clients and 5 transcript-page clients
 * connect and read nothing. Its resident memory (/proc/<pid>/status) is read before they connect,
 * at its peak while they hang (VmHWM, reset once the transcript is in), and after they were
 * dropped; the transcript itself, in the memory store's heap, is the baseline, not the growth.
 */

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SERVER = fileURLToPath(new URL('./support/slow-reader-server.ts', import.meta.url));
const WATCHDOG = new URL('../../packages/store-postgres/test/support/parent-watchdog.ts', import.meta.url).href;

const EVENTS = 9_999;
const EVENT_CHARS = 10_000;
const STREAM_CLIENTS = 50;
const PAGE_CLIENTS = 5;
/** streamLimits.dropStalledAfterMs for the test (the default is 60 s): long enough that all the streams are served and hang before the first is dropped, with other test files running beside this one. */
const DROP_MS = 15_000;
/**
 * What the server holds above what it held before the clients (docs/run-api.md, "Slow readers"),
 * with 50 streams and 5 pages hanging. Held by JavaScript (V8's heap and the buffers outside it,
 * after a collection, once the store is no longer read): each stream's 256 KiB queue, its page of
 * events in hand (~128 K characters) and what Node's socket buffer took. Peak resident memory
 * (VmHWM): that and the garbage of what the kernel's socket buffers absorbed (~4 MB a client on
 * loopback, read, encoded and sent) before a collection, and what the allocator keeps. Measured:
 * see the printed figures and docs/run-api.md. Before: each client queued the whole transcript
 * (~100 MB a client, 5 GB for these 50).
 *
 * The peak also holds whatever of the events read through the store (~2.3 transcripts' worth,
 * ~230 MB of strings and the driver's buffers on PostgreSQL) was not yet collected, and when V8
 * collects depends on how busy the machine is: +129 MB quiet, +259 MB with the suite beside it.
 * So the peak bound only separates "bounded" from "a transcript per client"; what the design
 * holds is HELD_BOUND_MB's check.
 */
const HELD_BOUND_MB = 64;
const MEMORY_BOUND_MB = 512;

const sockets: Socket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.destroy();
});

describe.each(HOSTILE_STORES)('clients that never read a 100 MB transcript, on %s', (kind) => {
  const stores = storeFor(kind, 'slowread');

  it('keep the server memory bounded, and are dropped once they stayed behind for the drop time', async () => {
    await stores.fresh(); // an empty schema for the child's store
    const database = stores.database();
    const server = spawnServer({
      SLOW_STORE: kind,
      SLOW_EVENTS: String(EVENTS),
      SLOW_EVENT_CHARS: String(EVENT_CHARS),
      SLOW_DROP_MS: String(DROP_MS),
      ...(database?.url ? { DATABASE_URL: database.url, AGENTRUN_DB_SCHEMA: database.schema } : {}),
    });
    try {
      const ready = JSON.parse((await server.waitForLine(/^slow-reader-ready (.*)$/, 90_000))[1] as string) as SlowReaderServerReady;
      const pid = server.pid as number;
      const origin = `http://127.0.0.1:${ready.port}`;
      const baseline = await stats(origin, true);
      const baselineKb = memoryKb(pid, 'VmRSS');
      // The peak from here on: what filling the transcript cost is not the clients'.
      writeFileSync(`/proc/${pid}/clear_refs`, '5');

      const auth = { authorization: `Bearer ${ready.key}` };
      const streams = Array.from({ length: STREAM_CLIENTS }, () =>
        stalledClient(ready.port, `/api/v1/agent/runs/${ready.runId}/events`, { ...auth, accept: 'text/event-stream' }),
      );
      Array.from({ length: PAGE_CLIENTS }, (_, i) =>
        stalledClient(ready.port, `/api/v1/agent/runs/${ready.runId}/transcript?after=${i * 2000}`, auth),
      );
      // Every stream was served; then every one is dropped (the pages, 200 events each, were
      // taken whole by the sockets' kernel buffers and have ended).
      await until(async () => (await stats(origin)).served >= STREAM_CLIENTS + PAGE_CLIENTS, 30_000, 'every client served');
      // Once the store is no longer read (every client's queue full), what is still held after a
      // collection: the clients' queues and pages in hand, not the garbage of what was sent.
      let lastRead = -1;
      let steadyLooks = 0;
      await until(
        async () => {
          const { eventsRead } = await stats(origin);
          steadyLooks = eventsRead === lastRead ? steadyLooks + 1 : 0;
          lastRead = eventsRead;
          return steadyLooks >= 3;
        },
        30_000,
        'the store reads stopped',
      );
      const stalledStats = await stats(origin, true);
      const heldKb = memoryKb(pid, 'VmRSS');
      let hangingKb = 0;
      await until(
        async () => {
          hangingKb = Math.max(hangingKb, memoryKb(pid, 'VmRSS'));
          return (await stats(origin)).open === 0;
        },
        60_000,
        'every stalled client dropped',
      );
      const peakKb = memoryKb(pid, 'VmHWM');
      await stats(origin, true);
      const afterKb = memoryKb(pid, 'VmRSS');

      // A dropped client, reading now, gets what the sockets held and then the end: not the transcript.
      const late = streams[0] as StalledClient;
      late.socket.resume();
      const received = await late.ended;
      expect(received).toBeGreaterThan(0);
      expect(received).toBeLessThan((EVENTS * EVENT_CHARS) / 4);

      const mb = (kb: number) => (kb / 1024).toFixed(0);
      const growthMb = (peakKb - baselineKb) / 1024;
      const heldMb = (stalledStats.heldBytes - baseline.heldBytes) / 2 ** 20;
      console.log(
        `[slow-readers ${kind}] server RSS ${mb(baselineKb)} MB with the transcript in place; peak ${mb(peakKb)} MB (+${growthMb.toFixed(0)} MB) with ${STREAM_CLIENTS} streams and ${PAGE_CLIENTS} pages unread (highest VmRSS seen ${mb(hangingKb)} MB; once the ${stalledStats.open} hung and ${(lastRead / EVENTS).toFixed(2)} transcripts' worth of events had been read, +${heldMb.toFixed(0)} MB held by JavaScript after a collection, VmRSS ${mb(heldKb)} MB); ${mb(afterKb)} MB after they were dropped and a collection; a dropped client read ${(received / 2 ** 20).toFixed(1)} MB once it resumed`,
      );
      expect(growthMb).toBeLessThan(MEMORY_BOUND_MB);
      // Every stream was served and hung before any was dropped: the figures above are for all of them.
      expect(stalledStats.open).toBe(STREAM_CLIENTS);
      // Each stream read what its socket buffers and queue took (~400 events): far from the whole transcript.
      expect(lastRead / STREAM_CLIENTS).toBeLessThan(EVENTS / 10);
      expect(heldMb).toBeLessThan(HELD_BOUND_MB);
    } finally {
      await server.stop();
    }
  }, 180_000);
});

function spawnServer(env: Record<string, string>): ManagedProcess {
  const child = spawn(process.execPath, ['--expose-gc', '--conditions=agentrun-source', '--import', 'tsx', '--import', WATCHDOG, SERVER], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return new ManagedProcess(`slow-reader-server`, child);
}

function memoryKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]);
}

async function stats(origin: string, gc = false): Promise<SlowReaderStats> {
  return (await (await fetch(`${origin}/__stats${gc ? '?gc=1' : ''}`)).json()) as SlowReaderStats;
}

async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface StalledClient {
  socket: Socket;
  /** Bytes received once it resumed, when the server ended the connection. */
  ended: Promise<number>;
}

/** A connection that sends `GET path` and then reads nothing (until its socket is resumed). */
function stalledClient(port: number, path: string, headers: Record<string, string>): StalledClient {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
  socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n${lines.join('')}\r\n`);
  socket.pause();
  let received = 0;
  const ended = new Promise<number>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    socket.on('end', () => resolve(received));
    socket.on('error', () => resolve(received));
  });
  return { socket, ended };
}
