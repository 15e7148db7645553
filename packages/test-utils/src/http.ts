import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { connect } from 'node:net';

export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Random bytes salted with sequences that are not valid UTF-8, so nothing may decode them. */
export function binaryBody(size: number): Uint8Array<ArrayBuffer> {
  const bytes = randomBytes(size);
  bytes.set([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0x00], 0);
  return new Uint8Array(bytes);
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A request through node:http, for what fetch cannot express: repeated request header fields.
 * `headers` values that are arrays are sent as separate fields.
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: OutgoingHttpHeaders; body?: Uint8Array } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * Start a body of `declared` bytes, send `sent` of them, then drop the connection once the
 * server has started handling it (`started` resolves).
 */
export async function disconnectMidBody(url: string, declared: number, sent: number, started: () => Promise<unknown>): Promise<void> {
  const req = httpRequest(url, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(declared) },
    agent: false,
  });
  req.on('error', () => {});
  req.write(new Uint8Array(sent));
  await started();
  req.destroy();
}

/** Resolve once `signal` aborts; reject after `ms` so a missing abort fails the test instead of hanging. */
export function aborted(signal: AbortSignal, ms = 5_000): Promise<unknown> {
  if (signal.aborted) return Promise.resolve(signal.reason);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the request signal never aborted')), ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve(signal.reason);
    });
  });
}

/** Poll until `check` passes. */
export async function eventually(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * A fetch body of up to `max` bytes made on demand, counting what the client was asked for: if
 * the server stops reading, the count stays far below `max`.
 */
export function countingStream(max: number, chunkSize = 64 * 1024): { body: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= max) return controller.close();
      pulled += chunkSize;
      controller.enqueue(new Uint8Array(chunkSize));
    },
  });
  return { body, pulled: () => pulled };
}

/**
 * Send `request` as raw bytes on a new connection to `origin` and read the answer until the
 * server closes: for requests no HTTP client will send (a control character in a header value).
 */
export function rawExchange(origin: string, request: string): Promise<RawResponse> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.write(request));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks);
      const end = raw.indexOf('\r\n\r\n');
      const [statusLine = '', ...fields] = raw.subarray(0, end).toString('latin1').split('\r\n');
      const headers: IncomingHttpHeaders = {};
      for (const field of fields) {
        const colon = field.indexOf(':');
        headers[field.slice(0, colon).trim().toLowerCase()] = field.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: raw.subarray(end + 4) });
    });
  });
}
