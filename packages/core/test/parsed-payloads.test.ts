import { describe, expect, it } from 'vitest';
import { createParsedPayloads } from '../src/ingress/evaluation/parsed-payloads.js';

describe('parsed payloads handed from the accept to the evaluation', () => {
  it('answers a value once, then none', () => {
    const parsed = createParsedPayloads();
    const value = { a: 1 };
    parsed.put('d1', value, 7);
    expect(parsed.take('d1')?.value).toBe(value);
    expect(parsed.take('d1')).toBeUndefined();
    expect(parsed.take('unknown')).toBeUndefined();
  });

  it('keeps null and other falsy values apart from none', () => {
    const parsed = createParsedPayloads();
    parsed.put('d1', null, 4);
    parsed.put('d2', 0, 1);
    expect(parsed.take('d1')).toMatchObject({ value: null });
    expect(parsed.take('d2')).toMatchObject({ value: 0 });
  });

  it('holds at most its entries, evicting the oldest', () => {
    const parsed = createParsedPayloads(3, 1000);
    for (let i = 0; i < 5; i++) parsed.put(`d${i}`, i, 1);
    expect(parsed.take('d0')).toBeUndefined();
    expect(parsed.take('d1')).toBeUndefined();
    expect([2, 3, 4].map((i) => parsed.take(`d${i}`)?.value)).toEqual([2, 3, 4]);
  });

  it('holds at most its bytes, evicting the oldest, and never one body larger than all', () => {
    const parsed = createParsedPayloads(100, 10);
    parsed.put('a', 'a', 4);
    parsed.put('b', 'b', 4);
    parsed.put('c', 'c', 4);
    parsed.put('huge', 'huge', 11);
    expect(parsed.take('huge')).toBeUndefined();
    expect(parsed.take('a')).toBeUndefined();
    expect(parsed.take('b')?.value).toBe('b');
    expect(parsed.take('c')?.value).toBe('c');
    // Taken entries free their bytes: two more fit again.
    parsed.put('d', 'd', 5);
    parsed.put('e', 'e', 5);
    expect(parsed.take('d')?.value).toBe('d');
    expect(parsed.take('e')?.value).toBe('e');
  });
});
