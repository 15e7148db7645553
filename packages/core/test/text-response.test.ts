import { AgentRunError } from '@agentrun/core';
import { bufferedResponse, jsonResponse, problemResponse, textResponse } from '@agentrun/core/internal';
import { describe, expect, it } from 'vitest';

const BODY = '{"a":1}';
const HEADERS = { 'content-type': 'application/json', 'x-y': 'z' };
const make = () => textResponse(BODY, 201, { ...HEADERS });

describe('textResponse', () => {
  it('passes for a Response and offers its buffered form while untouched', () => {
    const r = make();
    expect(r).toBeInstanceOf(Response);
    expect(Object.prototype.toString.call(r)).toBe('[object Response]');
    expect(r.status).toBe(201);
    expect(r.ok).toBe(true);
    expect(r.statusText).toBe('');
    expect(r.type).toBe('default');
    expect(r.url).toBe('');
    expect(r.redirected).toBe(false);
    // None of the above made the real response.
    expect(bufferedResponse(r)).toStrictEqual({ status: 201, headers: HEADERS, body: BODY });
  });

  it('says ok only for 2xx', () => {
    expect(textResponse('', 404, {}).ok).toBe(false);
    expect(textResponse('', 199, {}).ok).toBe(false);
    expect(textResponse('', 299, {}).ok).toBe(true);
    expect(textResponse('', 300, {}).ok).toBe(false);
  });

  it('reads its body as JSON through the real response, which is then the truth', async () => {
    const r = make();
    expect(await r.json()).toEqual({ a: 1 });
    expect(r.bodyUsed).toBe(true);
    expect(bufferedResponse(r)).toBeUndefined();
    expect(r.status).toBe(201);
    expect(r.statusText).toBe('');
  });

  it('rejects a second read with a TypeError, as a real Response does', async () => {
    const r = make();
    expect(await r.text()).toBe(BODY);
    await expect(r.text()).rejects.toThrow(TypeError);
    const real = new Response(BODY);
    await real.text();
    await expect(real.text()).rejects.toThrow(TypeError);
  });

  it('stops offering the buffered form once its headers are read, and keeps changes made to them', () => {
    const r = make();
    expect(r.headers.get('x-y')).toBe('z');
    expect(bufferedResponse(r)).toBeUndefined();
    r.headers.set('x-added', '1');
    expect(r.headers.get('x-added')).toBe('1');
    expect(r.headers.get('content-type')).toBe('application/json');
  });

  it('clones, and both bodies read', async () => {
    const r = make();
    const twin = r.clone();
    expect(twin).toBeInstanceOf(Response);
    expect(twin.status).toBe(201);
    expect(await twin.text()).toBe(BODY);
    expect(await r.text()).toBe(BODY);
  });

  it('hands out its body as a stream another Response can read', async () => {
    const r = make();
    expect(r.body).toBeInstanceOf(ReadableStream);
    expect(await new Response(r.body).text()).toBe(BODY);
  });

  it('is not confused with a plain Response', () => {
    expect(bufferedResponse(new Response('x'))).toBeUndefined();
    expect(bufferedResponse(Response.json({ a: 1 }))).toBeUndefined();
  });
});

describe('jsonResponse and problemResponse', () => {
  it('jsonResponse is buffered, with the JSON content type and extra headers', async () => {
    const r = jsonResponse({ a: 1 }, 202, { 'retry-after': '3' });
    expect(r).toBeInstanceOf(Response);
    expect(bufferedResponse(r)).toStrictEqual({
      status: 202,
      headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '3' },
      body: '{"a":1}',
    });
    expect(r.headers.get('retry-after')).toBe('3');
    expect(await r.json()).toEqual({ a: 1 });
  });

  it('jsonResponse defaults to 200 and lets a caller override the content type', () => {
    expect(bufferedResponse(jsonResponse([1]))).toStrictEqual({
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: '[1]',
    });
    expect(bufferedResponse(jsonResponse(null, 200, { 'content-type': 'text/plain' }))?.headers).toEqual({ 'content-type': 'text/plain' });
  });

  it('problemResponse is a buffered problem document', async () => {
    const r = problemResponse(new AgentRunError('payload_too_large', 'too big', { headers: { connection: 'close' } }));
    const buffered = bufferedResponse(r);
    expect(buffered?.status).toBe(413);
    expect(buffered?.headers).toEqual({ 'content-type': 'application/problem+json; charset=utf-8', connection: 'close' });
    expect(JSON.parse(buffered?.body ?? '')).toMatchObject({
      type: 'urn:agentrun:error:payload_too_large',
      status: 413,
      error: 'payload_too_large',
      detail: 'too big',
    });
    expect(await r.json()).toEqual(JSON.parse(buffered?.body ?? ''));
  });
});
