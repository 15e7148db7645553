import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { AgentRunError } from '@agentrun/core';
import { READ_BODY, REMOTE_ADDRESS, readBodyLimited } from '@agentrun/core/internal';
import { toWebRequest } from '@agentrun/node';
import { aborted, binaryBody, rawRequest } from '@agentrun/test-utils/http';
import { closeServer, listen } from '@agentrun/test-utils/servers';
import { afterAll, describe, expect, it } from 'vitest';

type BodyReader = (limit: number) => Promise<Uint8Array> | undefined;
type WithReader = Request & { [READ_BODY]: BodyReader };

/** What the server does with the next request: gets the bridged request (and the Node ones), returns what the test checks. */
type Probe<T> = (request: Request, req: IncomingMessage, res: ServerResponse) => Promise<T> | T;

interface Pending {
  probe: Probe<unknown>;
  maxBodyBytes: number | undefined;
  started: () => void;
  settle: (outcome: { value: unknown } | { error: unknown }) => void;
}

const LIMIT = 64 * 1024;
const MB = 1024 * 1024;

describe('toWebRequest over a real Node request', () => {
  // One request at a time: the server hands each to the probe the test registered for it.
  let pending: Pending | undefined;
  const server = createServer((req, res) => {
    const slot = pending;
    pending = undefined;
    if (slot === undefined) {
      res.writeHead(500, { connection: 'close' }).end('no probe');
      return;
    }
    slot.started();
    const options = { url: `http://host${req.url}`, response: res };
    new Promise<unknown>((resolve) =>
      resolve(
        slot.probe(
          toWebRequest(req, slot.maxBodyBytes === undefined ? options : { ...options, maxBodyBytes: slot.maxBodyBytes }),
          req,
          res,
        ),
      ),
    ).then(
      (value) => {
        slot.settle({ value });
        if (!res.headersSent) res.writeHead(200, { connection: 'close' }).end('done');
      },
      (error: unknown) => {
        slot.settle({ error });
        // Close rather than drain whatever body the client still sends.
        if (!res.headersSent) res.writeHead(500, { connection: 'close' }).end('failed');
      },
    );
  });
  const origin = listen(server);
  afterAll(() => closeServer(server));

  /**
   * Register `probe` for the next request, then `send` it. Resolves to what the probe returned
   * (rejects with what it threw) once the client is done too; the client's own failures (a
   * connection the server cut) do not count.
   */
  async function exchange<T>(
    probe: Probe<T>,
    send: (url: string, started: Promise<void>) => Promise<unknown>,
    options: { maxBodyBytes?: number; path?: string } = {},
  ): Promise<T> {
    let started!: () => void;
    const startedPromise = new Promise<void>((resolve) => {
      started = resolve;
    });
    const outcome = new Promise<{ value: unknown } | { error: unknown }>((settle) => {
      pending = { probe, maxBodyBytes: options.maxBodyBytes, started, settle };
    });
    const sent = send(`${await origin}${options.path ?? '/hooks/x?y=1'}`, startedPromise).catch(() => undefined);
    const result = await outcome;
    await sent;
    if ('error' in result) throw result.error;
    return result.value as T;
  }

  const post =
    (body: BodyInit, headers: Record<string, string> = {}) =>
    (url: string) => {
      const init: RequestInit & { duplex?: 'half' } = { method: 'POST', body, headers };
      if (body instanceof ReadableStream) init.duplex = 'half';
      return fetch(url, init);
    };
  /** A request that declares `declared` body bytes and sends none of them until the server has answered. */
  const declareOnly = (declared: number) => (url: string) =>
    new Promise<void>((resolve) => {
      const req = httpRequest(url, { method: 'POST', headers: { 'content-length': String(declared) }, agent: false }, (res) => {
        res.resume();
        res.on('end', resolve);
        req.destroy();
      });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      req.flushHeaders();
    });
  const chunked = (bytes: Uint8Array, size: number) => {
    let offset = 0;
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= bytes.byteLength) return controller.close();
        controller.enqueue(bytes.slice(offset, offset + size));
        offset += size;
      },
    });
  };
  const expectAgentRunError = async (promise: Promise<unknown>, code: string) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AgentRunError);
    expect((error as AgentRunError).code).toBe(code);
  };

  it("says the socket's peer address under REMOTE_ADDRESS, as the delivery log keeps it", async () => {
    const seen = await exchange(
      (request, req) => ({
        address: (request as Request & { [REMOTE_ADDRESS]?: unknown })[REMOTE_ADDRESS],
        socket: req.socket.remoteAddress,
      }),
      post('{}'),
    );
    expect(seen.address).toBe(seen.socket);
    expect(seen.address).toMatch(/127\.0\.0\.1|::1/);
  });

  it('is a Request with the method, the URL as given and the headers, repeated fields joined', async () => {
    const seen = await exchange(
      (request) => ({
        isRequest: request instanceof Request,
        method: request.method,
        url: request.url,
        headers: Object.fromEntries(request.headers),
      }),
      (url) =>
        rawRequest(url, {
          method: 'PUT',
          headers: { 'x-multi': ['one', 'two'], cookie: ['a=1', 'b=2'], 'X-Mixed-Case': 'v', 'content-length': '0' },
        }),
      { path: '/hooks/x?y=1&z' },
    );
    expect(seen.isRequest).toBe(true);
    expect(seen.method).toBe('PUT');
    expect(seen.url).toBe('http://host/hooks/x?y=1&z');
    expect(seen.headers).toMatchObject({ 'x-multi': 'one, two', cookie: 'a=1; b=2', 'x-mixed-case': 'v' });
  });

  it('reads the exact bytes through READ_BODY, once', async () => {
    const body = binaryBody(10_000);
    const seen = await exchange(async (request) => {
      const own = (request as WithReader)[READ_BODY];
      let calls = 0;
      // Watch core's reader on this one object: readBodyLimited must take it, not the Web stream.
      Object.defineProperty(request, READ_BODY, {
        value(this: WithReader, limit: number) {
          calls++;
          return own.call(this, limit);
        },
      });
      const bytes = await readBodyLimited(request, LIMIT);
      const callsAfterRead = calls;
      const again = await readBodyLimited(request, LIMIT).catch((e: unknown) => e);
      const bodyUsed = request.bodyUsed;
      // Now that the real Request exists, core reads its (used) stream instead: still a failure.
      const third = await readBodyLimited(request, LIMIT).catch((e: unknown) => e);
      const text = await request.text().catch((e: unknown) => e);
      return { bytes, callsAfterRead, again, bodyUsed, third, text };
    }, post(body));
    expect(Buffer.from(seen.bytes).equals(Buffer.from(body))).toBe(true);
    expect(seen.callsAfterRead).toBe(1);
    expect(seen.again).toBeInstanceOf(AgentRunError);
    expect(seen.again).toMatchObject({ code: 'invalid_request' });
    expect(seen.bodyUsed).toBe(true);
    expect(seen.third).toMatchObject({ code: 'invalid_request' });
    expect(seen.text).toBeInstanceOf(TypeError);
  });

  it('reads a body of about 1 MB that arrives in many chunks, from a stream or a Buffer', async () => {
    const body = binaryBody(MB + 123);
    const readAll = async (request: Request, req: IncomingMessage) => {
      let chunks = 0;
      const reading = readBodyLimited(request, 2 * MB);
      // Listening after the reader started only counts the chunks it gets.
      req.on('data', () => chunks++);
      return { bytes: await reading, chunks };
    };
    for (const send of [post(chunked(body, 16 * 1024)), post(Buffer.from(body))]) {
      const seen = await exchange(readAll, send);
      expect(seen.bytes.byteLength).toBe(body.byteLength);
      expect(Buffer.from(seen.bytes).equals(Buffer.from(body))).toBe(true);
      expect(seen.chunks).toBeGreaterThan(1);
    }
  });

  it('gives a GET no body', async () => {
    const seen = await exchange(
      async (request) => ({ bytes: await readBodyLimited(request, LIMIT), body: request.body }),
      (url) => fetch(url),
    );
    expect(seen.bytes.byteLength).toBe(0);
    expect(seen.body).toBeNull();
  });

  describe('limits', () => {
    it("refuses a body over core's limit", async () => {
      const probe = (request: Request) => readBodyLimited(request, LIMIT);
      await expectAgentRunError(exchange(probe, post(chunked(binaryBody(LIMIT + 1), 16 * 1024))), 'payload_too_large');
      // Exactly at the limit is fine.
      expect((await exchange(probe, post(binaryBody(LIMIT)))).byteLength).toBe(LIMIT);
    });

    it("refuses a body over the bridge's maxBodyBytes, the smaller limit applying", async () => {
      const probe = (request: Request) => readBodyLimited(request, LIMIT);
      const small = { maxBodyBytes: 1_000 };
      await expectAgentRunError(exchange(probe, post(chunked(binaryBody(1_001), 100)), small), 'payload_too_large');
      expect((await exchange(probe, post(chunked(binaryBody(1_000), 100)), small)).byteLength).toBe(1_000);
      // A bridge limit above core's does not lift core's.
      await expectAgentRunError(
        exchange(probe, post(chunked(binaryBody(LIMIT + 1), 16 * 1024)), { maxBodyBytes: 4 * LIMIT }),
        'payload_too_large',
      );
    });

    it('refuses a declared Content-Length over either limit before reading anything', async () => {
      // No byte of the body is ever sent: waiting for one would time the test out. The Node
      // request is never set flowing (readableFlowing stays null, or false once paused).
      const probe = (request: Request, req: IncomingMessage) =>
        readBodyLimited(request, LIMIT).then(
          () => ({ error: undefined, flowing: req.readableFlowing }),
          (error: unknown) => ({ error, flowing: req.readableFlowing }),
        );
      for (const [declared, options] of [
        [LIMIT + 1, {}],
        [2_000, { maxBodyBytes: 1_000 }],
      ] as const) {
        const seen = await exchange(probe, declareOnly(declared), options);
        expect(seen.error).toBeInstanceOf(AgentRunError);
        expect(seen).toMatchObject({ error: { code: 'payload_too_large' } });
        expect(seen.flowing).not.toBe(true);
      }
    });

    it('applies maxBodyBytes to the real Request body as well', async () => {
      const probe = (request: Request) => request.arrayBuffer();
      await expect(exchange(probe, post(chunked(binaryBody(1_001), 100)), { maxBodyBytes: 1_000 })).rejects.toThrow();
      expect((await exchange(probe, post(binaryBody(1_000)), { maxBodyBytes: 1_000 })).byteLength).toBe(1_000);
    });
  });

  describe('the real Request', () => {
    it('reads the body through text(), after which READ_BODY declines and the used stream fails', async () => {
      const seen = await exchange(async (request) => {
        const text = await request.text();
        const declined = (request as WithReader)[READ_BODY](LIMIT);
        const again = await readBodyLimited(request, LIMIT).then(
          (bytes) => ({ bytes }),
          (error: unknown) => ({ error }),
        );
        return { text, declined, bodyUsed: request.bodyUsed, again };
      }, post('{"hello":"world"}'));
      expect(seen.text).toBe('{"hello":"world"}');
      expect(seen.declined).toBeUndefined();
      expect(seen.bodyUsed).toBe(true);
      expect(seen.again).toMatchObject({ error: { code: 'invalid_request' } });
    });

    it('clones before the body is read, and both copies read it', async () => {
      const body = binaryBody(5_000);
      const seen = await exchange(async (request) => {
        const twin = request.clone();
        const [mine, theirs] = await Promise.all([readBodyLimited(request, LIMIT), twin.arrayBuffer()]);
        return { isRequest: twin instanceof Request, url: twin.url, mine, theirs: new Uint8Array(theirs) };
      }, post(body));
      expect(seen.isRequest).toBe(true);
      expect(seen.url).toBe('http://host/hooks/x?y=1');
      expect(Buffer.from(seen.mine).equals(Buffer.from(body))).toBe(true);
      expect(Buffer.from(seen.theirs).equals(Buffer.from(body))).toBe(true);
    });
  });

  describe('signal', () => {
    it('aborts when the client disconnects in the middle of the body', async () => {
      const reason = await exchange(
        async (request) => {
          // Never finish reading: only the disconnect can end this.
          const signal = request.signal;
          expect(signal.aborted).toBe(false);
          return aborted(signal);
        },
        (url, started) =>
          new Promise<void>((resolve) => {
            const req = httpRequest(url, { method: 'POST', headers: { 'content-length': '1000' }, agent: false });
            req.on('error', () => resolve());
            req.on('close', () => resolve());
            req.write(new Uint8Array(10));
            void started.then(() => req.destroy());
          }),
      );
      expect(reason).toBeInstanceOf(DOMException);
      expect((reason as DOMException).name).toBe('AbortError');
    });

    it('aborts when the client disconnects after a complete request, before the response is finished', async () => {
      // A request with no body is complete at once: only the response can tell the client left.
      const reason = await exchange(
        async (request, req) => {
          const bytes = await readBodyLimited(request, LIMIT);
          expect(bytes.byteLength).toBe(0);
          expect(req.complete).toBe(true);
          return aborted(request.signal);
        },
        (url, started) =>
          new Promise<void>((resolve) => {
            const { hostname, port } = new URL(url);
            const socket = connect(Number(port), hostname, () => {
              socket.write(`GET /hooks/x HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
            });
            socket.on('error', () => resolve());
            socket.on('close', () => resolve());
            void started.then(() => socket.destroy());
          }),
      );
      expect((reason as DOMException).name).toBe('AbortError');
    });

    it('does not abort once the response is finished', async () => {
      let signal: AbortSignal | undefined;
      await exchange(
        (request, _req, res) =>
          new Promise<void>((resolve) => {
            signal = request.signal;
            res.end('done', () => resolve());
          }),
        (url) => fetch(url).then((r) => r.text()),
      );
      expect(signal?.aborted).toBe(false);
    });
  });

  it('carries TRACE as far as method and url, for the handler to route; a real Request of it is a not_implemented AgentRunError', async () => {
    const seen = await exchange(
      (request) => ({ method: request.method, url: request.url }),
      (url) => rawRequest(url, { method: 'TRACE' }),
    );
    expect(seen).toEqual({ method: 'TRACE', url: 'http://host/hooks/x?y=1' });
    await expectAgentRunError(
      exchange(
        (request) => request.text(),
        (url) => rawRequest(url, { method: 'TRACE' }),
      ),
      'not_implemented',
    );
  });
});
