import type { IncomingMessage } from 'node:http';
import { toWebRequest } from '@agentrun/node';
import { describe, expect, it } from 'vitest';

/** A bridged request over these raw header lines (name, value, name, value, …). */
const bridged = (rawHeaders: string[]) =>
  toWebRequest({ method: 'POST', rawHeaders, headers: {} } as unknown as IncomingMessage, { url: 'http://h/x' });

const RAW = [
  ':authority',
  'h',
  'X-Request-Id',
  ' abc\t',
  'Accept',
  'a',
  'accept',
  'b',
  'Cookie',
  'x=1',
  'cookie',
  'y=2',
  'Authorization',
  'Bearer t',
  'X-Empty',
  '',
];

describe('the headers of a bridged request', () => {
  it('answers get as the real Headers do: any case, repeats joined, cookies with "; ", values trimmed', () => {
    const headers = bridged(RAW).headers;
    const real = new Headers();
    for (let i = 2; i < RAW.length; i += 2) {
      const name = RAW[i] as string;
      const cookie = name.toLowerCase() === 'cookie' ? real.get('cookie') : null;
      if (cookie !== null) real.set('cookie', `${cookie}; ${RAW[i + 1]}`);
      else real.append(name, RAW[i + 1] as string);
    }
    for (const name of ['x-request-id', 'X-REQUEST-ID', 'accept', 'cookie', 'authorization', 'x-empty', 'missing']) {
      expect(headers.get(name), name).toBe(real.get(name));
    }
    expect(headers.get('x-request-id')).toBe('abc');
    expect(headers.get('accept')).toBe('a, b');
    expect(headers.get('cookie')).toBe('x=1; y=2');
    expect(headers.get('missing')).toBeNull();
  });

  it('refuses an invalid name as Headers does', () => {
    expect(() => bridged(RAW).headers.get('a b')).toThrow(TypeError);
  });

  it('is a Headers for everything else: instanceof, has, iteration, entries, set', () => {
    const headers = bridged(RAW).headers;
    expect(headers).toBeInstanceOf(Headers);
    expect(headers.has('ACCEPT')).toBe(true);
    expect([...headers]).toEqual([
      ['accept', 'a, b'],
      ['authorization', 'Bearer t'],
      ['cookie', 'x=1; y=2'],
      ['x-empty', ''],
      ['x-request-id', 'abc'],
    ]);
    expect([...headers.keys()]).toContain('x-request-id');
    expect(new Headers(headers).get('accept')).toBe('a, b');
    headers.set('accept', 'c');
    expect(headers.get('accept')).toBe('c');
  });
});
