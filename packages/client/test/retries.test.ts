import { describe, expect, it } from 'vitest';
import {
  AgentRunClient,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  type Fetch,
  InternalServerError,
  RateLimitError,
  UnprocessableEntityError,
} from '../src/index.js';
import { retryDelayMs, shouldRetry } from '../src/retry.js';

/**
 * Retries, timeouts and the error classes on a stub fetch: what the reference server cannot be
 * made to answer (the shared suite, client.test.ts, covers the rest against the real server).
 */

const problem = (status: number, headers: Record<string, string> = {}) =>
  new Response(
    JSON.stringify({ type: `about:blank#${status}`, title: 'T', status, error: 'e', detail: `d${status}`, request_id: 'req_1' }),
    {
      status,
      headers: { 'content-type': 'application/problem+json', ...headers },
    },
  );

/** A client whose fetch answers from `script` in turn (a Response, or an Error to throw). */
const scripted = (script: (Response | Error)[], options: { maxRetries?: number } = {}) => {
  const calls: Request[] = [];
  const fetch: Fetch = async (input, init) => {
    calls.push(new Request(input, init));
    const next = script.shift();
    if (next === undefined) throw new Error('script ran out');
    if (next instanceof Error) throw next;
    return next;
  };
  return { client: new AgentRunClient({ apiKey: 'k', baseURL: 'http://x', fetch, ...options }), calls };
};

describe('retries', () => {
  it('stops after maxRetries and throws the last error', async () => {
    const { client, calls } = scripted([problem(500, { 'retry-after-ms': '0' }), problem(502, { 'retry-after-ms': '0' })], {
      maxRetries: 1,
    });
    const error = await client.runs.get('r').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ status: 502, detail: 'd502', request_id: 'req_1', type: 'about:blank#502', title: 'T', error: 'e' });
    expect(calls.length).toBe(2);
  });

  it('honours x-should-retry: true on a status it would not retry, and false on one it would', async () => {
    const yes = scripted([problem(400, { 'x-should-retry': 'true', 'retry-after-ms': '0' }), new Response('"ok"', { status: 200 })]);
    expect(await yes.client.runs.get('r')).toBe('ok');
    expect(yes.calls.length).toBe(2);
    const no = scripted([problem(503, { 'x-should-retry': 'false' })]);
    await expect(no.client.runs.get('r')).rejects.toBeInstanceOf(InternalServerError);
    expect(no.calls.length).toBe(1);
  });

  it('retries 408, 409 and 429 but not 400-class answers such as 422', async () => {
    for (const status of [408, 409, 429]) {
      const { client, calls } = scripted([problem(status, { 'retry-after-ms': '0' }), new Response('{}', { status: 200 })]);
      await client.runs.get('r');
      expect({ status, calls: calls.length }).toEqual({ status, calls: 2 });
    }
    const { client, calls } = scripted([problem(422)]);
    await expect(client.runs.get('r')).rejects.toBeInstanceOf(UnprocessableEntityError);
    expect(calls.length).toBe(1);
  });

  it('gives each status its class', async () => {
    const { client } = scripted([problem(429, { 'x-should-retry': 'false' }), problem(418)], { maxRetries: 0 });
    await expect(client.runs.get('r')).rejects.toBeInstanceOf(RateLimitError);
    const teapot = await client.runs.get('r').catch((e: unknown) => e);
    expect(teapot).toBeInstanceOf(APIError);
    expect((teapot as APIError).constructor).toBe(APIError);
  });

  it('reads the wait from retry-after-ms, then Retry-After in seconds or as a date, else backs off exponentially with jitter', () => {
    expect(retryDelayMs(2, 2, new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    expect(retryDelayMs(2, 2, new Headers({ 'retry-after': '3' }))).toBe(3000);
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    const fromDate = retryDelayMs(2, 2, new Headers({ 'retry-after': inTenSeconds }));
    expect(fromDate).toBeGreaterThan(8_000);
    expect(fromDate).toBeLessThanOrEqual(10_000);
    expect(retryDelayMs(2, 2, new Headers({ 'retry-after': '600' }), () => 0)).toBe(500);
    expect(retryDelayMs(2, 2, undefined, () => 0)).toBe(500);
    expect(retryDelayMs(1, 2, undefined, () => 0)).toBe(1000);
    expect(retryDelayMs(1, 2, undefined, () => 1)).toBe(750);
    expect(shouldRetry(500, new Headers())).toBe(true);
    expect(shouldRetry(404, new Headers())).toBe(false);
  });
});

describe('timeouts and aborts', () => {
  /** A fetch that answers only when its signal aborts, as a server that never answers. */
  const hanging: Fetch = (_input, init) =>
    new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true }));

  it('a call with no answer within timeoutMs throws APIConnectionTimeoutError, per call too', async () => {
    const client = new AgentRunClient({ apiKey: 'k', baseURL: 'http://x', fetch: hanging, maxRetries: 0, timeoutMs: 20 });
    const error = await client.runs.get('r').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(error).toBeInstanceOf(APIConnectionError);
    const patient = new AgentRunClient({ apiKey: 'k', baseURL: 'http://x', fetch: hanging, maxRetries: 0 });
    await expect(patient.runs.get('r', { timeoutMs: 20 })).rejects.toBeInstanceOf(APIConnectionTimeoutError);
  });

  it("the caller's AbortSignal ends the call without a retry", async () => {
    let calls = 0;
    const counting: Fetch = (input, init) => {
      calls++;
      return hanging(input, init);
    };
    const client = new AgentRunClient({ apiKey: 'k', baseURL: 'http://x', fetch: counting, maxRetries: 2 });
    const controller = new AbortController();
    const call = client.runs.get('r', { signal: controller.signal });
    controller.abort();
    await expect(call).rejects.toBeInstanceOf(APIUserAbortError);
    expect(calls).toBe(1);
  });

  it('a connection error with no retries left is an APIConnectionError carrying its cause', async () => {
    const cause = new TypeError('fetch failed');
    const { client } = scripted([cause], { maxRetries: 0 });
    const error = await client.runs.get('r').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).not.toBeInstanceOf(APIConnectionTimeoutError);
    expect((error as APIConnectionError).cause).toBe(cause);
  });
});
