import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pathnameOf } from '../src/http/request-path.js';

// pathnameOf reads the path directly where it can; it must always answer what `new URL` does.
describe('pathnameOf', () => {
  const same = (url: string) => expect(pathnameOf(url)).toBe(new URL(url).pathname);

  it('reads plain paths as URL does', () => {
    for (const url of [
      'http://bench.local/webhooks/w/abc',
      'https://example.com:8443/api/v1/runs?state=QUEUED#x',
      'http://h/webhooks/w/a%2Fb/t%20k',
      'http://h/a//b/',
      'http://h/a/.hidden/b.json',
      'http://h/x/%zz',
    ]) {
      same(url);
    }
  });

  it('leaves to URL what URL rewrites: dot segments, backslashes, spaces, non-ASCII, userinfo, no path', () => {
    for (const url of [
      'http://h/a/./b',
      'http://h/a/../b',
      'http://h/a/%2e%2E/b',
      'http://h/a/.%2e',
      'http://h/a/..',
      'http://h/a\\b',
      'http://h\\a/b',
      'http://u@h/a',
      'http://h/a b',
      'http://h/é',
      'http://h/a\tb',
      'http://h',
      'http://h?q',
      ' http://h/a',
      'http://h/a ',
      'HTTP://h/a',
      'file:///etc/x',
      'http:///a',
      'http://h/{x}`^|"<>',
    ]) {
      same(url);
    }
  });

  it('agrees with URL on any path made of URL-ish characters', () => {
    const char = fc.constantFrom(...'aZ09-._~!$&\'()*+,;=:@/%2eE\\ ?#é\t{}`^|"<>'.split(''));
    fc.assert(
      fc.property(fc.array(char, { maxLength: 24 }), fc.constantFrom('http://h', 'https://h:1', 'http://u@h'), (chars, origin) => {
        const url = `${origin}/${chars.join('')}`;
        same(url);
      }),
      { numRuns: 3000 },
    );
  });
});
