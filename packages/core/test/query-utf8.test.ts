import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { queryObject } from '../src/http/query.js';
import { expectProblem, type Harness, setup } from './helpers.js';

// Bytes that are not UTF-8 in a query are a 400 naming the parameter, as they are in a path
// (docs/run-api.md, "Errors"), not text with U+FFFD in their place.

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const isUtf8 = (bytes: Uint8Array) => {
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
};
const percentEncode = (bytes: Uint8Array) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
const query = (search: string) => queryObject(new URL(`http://x.test/p${search}`));

describe('queryObject and bytes that are not UTF-8', () => {
  it('decodes a value exactly when its bytes are UTF-8, and otherwise names its parameter', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12 }), fc.boolean(), (bytes, upper) => {
        const raw = upper ? percentEncode(bytes).toUpperCase() : percentEncode(bytes);
        if (isUtf8(bytes) && !bytes.includes(0)) {
          expect(query(`?a=1&q=${raw}`)).toEqual({ a: '1', q: strict.decode(bytes) });
        } else if (!isUtf8(bytes)) {
          expect(() => query(`?a=1&q=${raw}`)).toThrow('invalid query: q is not valid UTF-8');
        }
      }),
    );
  });

  it('refuses a name that is not UTF-8, and leaves a % without two hex digits as text', () => {
    expect(() => query('?%FF=1')).toThrow('invalid query: a parameter name is not valid UTF-8');
    expect(() => query('?q=%E2%82')).toThrow('invalid query: q is not valid UTF-8');
    expect(query('?q=%zz%C3%A9+x&r=%ef%bb%bf')).toEqual({ q: '%zzé x', r: '\ufeff' });
  });
});

describe('through the handler', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await setup();
  });

  it('answers ?name=%FF with a 400 problem naming the parameter, and ?name=%C3%A9 with 200', async () => {
    const p = await expectProblem(await h.call('GET', '/agent/runs?name=%FF'), 400, 'invalid_request');
    expect(p.detail).toBe('invalid query: name is not valid UTF-8 (percent-encode UTF-8 bytes)');
    expect((await h.call('GET', '/agent/runs?name=%C3%A9')).status).toBe(200);
  });
});
