import type { IncomingMessage, ServerResponse } from 'node:http';
import { type BufferedResponse, bufferedResponse, isStalledReaderDrop } from '@agentrun/core/internal';
import { clientGone } from './signals.js';

/**
 * Whether the connection must close after this response: the request body was not read to its
 * end (refused as too large, or never wanted). Keeping it alive would make Node drain the rest of
 * an arbitrarily large upload; closing is what Fastify does after a body error too.
 */
export function mustCloseConnection(req: IncomingMessage | undefined): boolean {
  return req !== undefined && req.httpVersionMajor === 1 && !req.complete;
}

/**
 * Write a Web `Response` to a Node response: status, headers (each `Set-Cookie` separately, after
 * any the host already set), then the body, honouring backpressure. If the client goes away the
 * body stream is cancelled, so its producer learns of it; a body that fails midway destroys the
 * response, since a truncated reply must not look complete.
 */
export async function writeWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const buffered = bufferedResponse(response);
  if (buffered !== undefined) return writeBuffered(res, buffered);
  if (res.destroyed || res.writableEnded) {
    await response.body?.cancel(clientGone()).catch(() => {});
    return;
  }
  res.statusCode = response.status;
  if (response.statusText !== '') res.statusMessage = response.statusText;
  for (const [name, value] of response.headers) {
    if (name !== 'set-cookie') res.setHeader(name, value);
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader('set-cookie', [...hostCookies(res), ...cookies]);
  if (mustCloseConnection(res.req)) res.setHeader('connection', 'close');

  const body = response.body;
  if (body === null || res.req?.method === 'HEAD' || response.status === 204 || response.status === 304) {
    await body?.cancel().catch(() => {});
    res.end();
    return;
  }
  await pipeBody(body, res);
}

/** A response core made from a string (every JSON reply): one write, no stream to read it through. */
function writeBuffered(res: ServerResponse, { status, headers, body }: BufferedResponse): void {
  if (res.destroyed || res.writableEnded) return;
  res.statusCode = status;
  for (const name of Object.keys(headers)) {
    const value = headers[name] as string;
    res.setHeader(name, name.toLowerCase() === 'set-cookie' ? [...hostCookies(res), value] : value);
  }
  if (mustCloseConnection(res.req)) res.setHeader('connection', 'close');
  if (res.req?.method === 'HEAD' || status === 204 || status === 304) res.end();
  else res.end(body);
}

function hostCookies(res: ServerResponse): string[] {
  const existing = res.getHeader('set-cookie');
  if (existing === undefined) return [];
  return Array.isArray(existing) ? existing : [String(existing)];
}

async function pipeBody(body: ReadableStream<Uint8Array>, res: ServerResponse): Promise<void> {
  const reader = body.getReader();
  const stop = () => {
    reader.cancel(clientGone()).catch(() => {});
  };
  res.once('close', stop);
  try {
    let chunk = await reader.read();
    if (chunk.done) return void res.end();
    let next = reader.read();
    // A body already in memory (every JSON reply) has ended by the next turn of the event loop:
    // send it in one write so Node sets Content-Length instead of chunking. A real stream is not
    // held back for longer than that.
    const early = await Promise.race([next, new Promise<undefined>((resolve) => setImmediate(() => resolve(undefined)))]);
    if (early?.done) return void res.end(chunk.value);
    for (;;) {
      if (res.destroyed) return;
      // Nothing more is read from the body until the client took this chunk: the body's own queue
      // then fills and its producer stops (core's paced bodies stop reading the store). A body that
      // errors meanwhile (one that dropped this client for not reading) ends the wait.
      if (!res.write(chunk.value)) await Promise.race([drained(res), reader.closed]);
      chunk = await next;
      if (chunk.done) break;
      next = reader.read();
    }
    if (!res.destroyed) res.end();
  } catch (error) {
    res.destroy();
    // A body that gave up on a client that stopped reading (docs/run-api.md, "Slow readers"): the
    // connection is closed, and nothing failed on the server's side.
    if (isStalledReaderDrop(error)) return;
    throw error;
  } finally {
    res.off('close', stop);
    // A no-op once the body has ended; otherwise the response was destroyed under us.
    stop();
  }
}

/** Resolves on 'drain', or on 'close' when the client is gone and no drain will come. */
const drained = (res: ServerResponse) =>
  new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
