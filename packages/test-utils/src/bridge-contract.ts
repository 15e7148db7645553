import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Echo, type EchoHandler, echoHandler, STREAM_FIRST, STREAM_SECOND } from './echo-handler.js';
import { aborted, binaryBody, countingStream, disconnectMidBody, eventually, rawRequest, sha256 } from './http.js';

/** Body limit of both mounts: enforced by the bridge on `/agents`, by the handler on `/limited`. */
export const LIMIT = 2 * 1024 * 1024;

export interface ContractSetup {
  /** Mount at `/agents` with `maxBodyBytes: LIMIT`; its handler reads up to 64 MiB. */
  main: EchoHandler;
  /** Mount at `/limited` without `maxBodyBytes`; its handler reads at most LIMIT bytes. */
  limited: EchoHandler;
}

export interface StartedServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  close(): Promise<void>;
}

/**
 * What every way of serving agentrun from Node must do, run against a real server listening on
 * 127.0.0.1. Call it inside a `describe`; `start` mounts the two handlers as `ContractSetup` says.
 */
export function bridgeContract(start: (setup: ContractSetup) => Promise<StartedServer>): void {
  const main = echoHandler();
  const limited = echoHandler({ bodyLimit: LIMIT });
  let server: StartedServer;
  const at = (path: string) => server.origin + path;

  beforeAll(async () => {
    server = await start({ main, limited });
  });
  afterAll(() => server?.close());

  it('delivers a 1 MB binary body byte-exact, with method, query and the path relative to the mount point', async () => {
    const body = binaryBody(1024 * 1024);
    const res = await fetch(at('/agents/api/v1/echo?a=1&a=2&b=%20x'), {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body,
    });
    expect(res.status).toBe(200);
    const echo = (await res.json()) as Echo;
    expect(echo).toMatchObject({ method: 'PUT', path: '/api/v1/echo', search: '?a=1&a=2&b=%20x', length: body.byteLength });
    expect(echo.sha256).toBe(sha256(body));
    expect(echo.headers['content-type']).toBe('application/octet-stream');
  });

  it('delivers a small invalid UTF-8 body byte-exact, and a GET without one', async () => {
    const body = new Uint8Array([0xff, 0xfe, 0xc3, 0x28, 0x80, 0x00, 0x7b]);
    const post = (await (await fetch(at('/agents/api/v1/echo'), { method: 'POST', body })).json()) as Echo;
    expect(post).toMatchObject({ method: 'POST', length: 7, sha256: sha256(body) });
    const get = (await (await fetch(at('/agents/api/v1/echo'))).json()) as Echo;
    expect(get).toMatchObject({ method: 'GET', path: '/api/v1/echo', length: 0 });
  });

  it('answers HEAD with the headers and no body', async () => {
    const res = await fetch(at('/agents/api/v1/cookies'), { method: 'HEAD' });
    expect(res.status).toBe(201);
    expect(res.headers.getSetCookie()).toHaveLength(2);
    expect(await res.text()).toBe('');
  });

  it('copies request headers, joining repeated fields', async () => {
    const res = await rawRequest(at('/agents/api/v1/echo'), {
      headers: { 'x-multi': ['one', 'two'], cookie: ['a=1', 'b=2'], authorization: 'Bearer k', 'X-Mixed-Case': 'v' },
    });
    expect(res.status).toBe(200);
    const echo = JSON.parse(res.body.toString()) as Echo;
    expect(echo.headers).toMatchObject({ 'x-multi': 'one, two', cookie: 'a=1; b=2', authorization: 'Bearer k', 'x-mixed-case': 'v' });
    expect(echo.headers.host).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it('passes the status and headers through, each Set-Cookie separately', async () => {
    const res = await fetch(at('/agents/api/v1/cookies'));
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('text/x-agentrun; charset=utf-8');
    expect(res.headers.get('x-agentrun')).toBe('yes');
    expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/; HttpOnly', 'b=2; Path=/; Secure']);
    expect(await res.text()).toBe('created');
  });

  it('streams a response body as it is produced', async () => {
    const res = await fetch(at('/agents/api/v1/stream'));
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    // The second chunk is only produced after we saw the first: a buffering bridge would hang here.
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe(STREAM_FIRST);
    main.release();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += decoder.decode(r.value, { stream: true });
    expect(rest).toBe(STREAM_SECOND);
  });

  it('answers unknown agentrun paths with the handler 404 problem, without reading their 1 MB body', async () => {
    const res = await fetch(at('/agents/api/v1/nope'), { method: 'POST', body: binaryBody(1024 * 1024) });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(await res.json()).toMatchObject({ status: 404, error: 'not_found' });
  });

  for (const [mount, who] of [
    ['/agents', 'the bridge (maxBodyBytes)'],
    ['/limited', 'the handler (readBodyLimited)'],
  ] as const) {
    it(`answers 413 when Content-Length is over the limit, enforced by ${who}`, async () => {
      const res = await fetch(at(`${mount}/api/v1/echo`), { method: 'POST', body: new Uint8Array(LIMIT + 1) });
      await expectTooLarge(res);
    });

    it(`closes the connection after a 413 instead of draining the rest, enforced by ${who}`, async () => {
      const res = await rawRequest(at(`${mount}/api/v1/echo`), { method: 'POST', body: new Uint8Array(LIMIT + 1) });
      expect(res.status).toBe(413);
      expect(res.headers.connection).toBe('close');
    });

    it(`answers 413 to a chunked body that runs past the limit and stops reading it, enforced by ${who}`, async () => {
      const max = 512 * 1024 * 1024;
      const upload = countingStream(max);
      const res = await fetch(at(`${mount}/api/v1/echo`), { method: 'POST', body: upload.body, duplex: 'half' } as RequestInit).catch(
        (error: unknown) => error,
      );
      // The server answers before the body ends and closes: a client still writing may meet the
      // closed socket (EPIPE, ECONNRESET) before it reads the 413 (the Content-Length cases above
      // read it every time). Either way the upload stopped far short of its end.
      if (res instanceof Response) await expectTooLarge(res);
      else expect(['EPIPE', 'ECONNRESET']).toContain((res as { cause?: { code?: string } }).cause?.code);
      // Socket buffers let the client get some way past the limit, nowhere near the whole upload.
      expect(upload.pulled()).toBeLessThan(64 * 1024 * 1024);
      const next = await fetch(at(`${mount}/api/v1/echo`), { method: 'POST', body: 'still up' });
      expect(((await next.json()) as Echo).length).toBe(8);
    });
  }

  it('aborts the request signal when the client disconnects mid-body, and keeps serving', async () => {
    const before = main.seen.length;
    await disconnectMidBody(at('/agents/api/v1/echo'), 1024 * 1024, 64 * 1024, () => eventually(() => main.seen.length > before));
    const seen = main.seen[before]!;
    await aborted(seen.request.signal);
    await seen.settled;
    const res = await fetch(at('/agents/api/v1/echo'), { method: 'POST', body: 'ok' });
    expect(((await res.json()) as Echo).length).toBe(2);
  });

  it('aborts the request signal when the client leaves while the handler works', async () => {
    const before = main.seen.length;
    const client = new AbortController();
    const pending = fetch(at('/agents/api/v1/wait'), { signal: client.signal }).catch(() => 'client aborted');
    await eventually(() => main.seen.length > before);
    client.abort();
    expect(await pending).toBe('client aborted');
    await aborted(main.seen[before]!.request.signal);
  });

  it('cancels a response body the client stops reading, without stalling the server', async () => {
    const client = new AbortController();
    const res = await fetch(at('/agents/api/v1/endless'), { signal: client.signal });
    const reader = res.body!.getReader();
    let received = 0;
    while (received < 1024 * 1024) received += (await reader.read()).value?.byteLength ?? 0;
    client.abort();
    await main.endlessCancelled();
    // Backpressure held: the producer was asked for little more than the client took.
    expect(main.endlessProduced()).toBeLessThan(received + 32 * 1024 * 1024);
  });

  it('leaves paths agentrun does not own to the host', async () => {
    const before = main.seen.length;
    const res = await fetch(at('/agents/not-agentrun'));
    expect(res.status).toBe(404);
    await res.arrayBuffer();
    expect(main.seen.length).toBe(before);
  });
}

async function expectTooLarge(res: Response): Promise<void> {
  expect(res.status).toBe(413);
  expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  expect(await res.json()).toMatchObject({
    type: 'urn:agentrun:error:payload_too_large',
    status: 413,
    error: 'payload_too_large',
    detail: `the request body is larger than ${LIMIT} bytes`,
  });
}
