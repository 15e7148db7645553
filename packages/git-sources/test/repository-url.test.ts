import { RepositoryError } from '@agentrun/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRepositoryUrl } from '../src/index.js';
import { checkPath, checkRef } from '../src/names.js';

const refused = (check: () => unknown): boolean => {
  try {
    check();
    return false;
  } catch (error) {
    return error instanceof RepositoryError && error.code === 'invalid';
  }
};

const host = fc.domain();
const segment = fc.stringMatching(/^[A-Za-z0-9._-]{1,20}$/).filter((part) => part !== '.' && part !== '..');
const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'));

describe('checkRepositoryUrl', () => {
  it('accepts https://, http://, file:// and absolute paths', () => {
    fc.assert(
      fc.property(fc.constantFrom('https', 'http'), host, path, (scheme, name, rest) => {
        expect(checkRepositoryUrl(`${scheme}://${name}/${rest}`)).toBe(`${scheme}://${name}/${rest}`);
      }),
    );
    fc.assert(
      fc.property(path, (rest) => {
        expect(checkRepositoryUrl(`/${rest}`)).toBe(`/${rest}`);
        expect(checkRepositoryUrl(`file:///${rest}`)).toBe(`file:///${rest}`);
      }),
    );
  });

  it('refuses every other transport, scp-like and relative names', () => {
    const scheme = fc.stringMatching(/^[a-z][a-z0-9+.-]{0,10}$/).filter((name) => !['https', 'http', 'file'].includes(name));
    fc.assert(fc.property(scheme, host, path, (name, where, rest) => refused(() => checkRepositoryUrl(`${name}://${where}/${rest}`))));
    fc.assert(fc.property(path, (rest) => refused(() => checkRepositoryUrl(`ext::sh -c ${rest}`))));
    fc.assert(fc.property(host, path, (where, rest) => refused(() => checkRepositoryUrl(`git@${where}:${rest}`))));
    fc.assert(fc.property(path, (rest) => refused(() => checkRepositoryUrl(rest))));
    expect(refused(() => checkRepositoryUrl('fd::17'))).toBe(true);
    expect(refused(() => checkRepositoryUrl(''))).toBe(true);
  });

  it('refuses a credential in the URL, a control character or space anywhere, and `..` in a path', () => {
    fc.assert(
      fc.property(host, path, fc.stringMatching(/^[A-Za-z0-9]{6,20}$/), fc.boolean(), (where, rest, secret, withUser) => {
        const userinfo = withUser ? `user:${secret}` : secret;
        const url = `https://${userinfo}@${where}/${rest}`;
        expect(refused(() => checkRepositoryUrl(url))).toBe(true);
        // Nor does the refusal tell the secret.
        expect(() => checkRepositoryUrl(url)).toThrow(/\[redacted\]@/);
        try {
          checkRepositoryUrl(url);
        } catch (error) {
          // (The secret as a whole may recur in the generated host or path; what stood before the `@` may not.)
          expect((error as Error).message).not.toContain(`${userinfo}@`);
        }
      }),
    );
    const control = fc.integer({ min: 0, max: 0x20 }).map((code) => String.fromCharCode(code));
    fc.assert(
      fc.property(host, path, control, fc.nat({ max: 30 }), (where, rest, bad, at) => {
        const url = `https://${where}/${rest}`;
        const cut = Math.min(at, url.length);
        return refused(() => checkRepositoryUrl(`${url.slice(0, cut)}${bad}${url.slice(cut)}`));
      }),
    );
    expect(refused(() => checkRepositoryUrl('/srv/git/../etc'))).toBe(true);
  });
});

describe('refs and paths', () => {
  it('accepts branch-like names and refuses options, revision expressions and newlines', () => {
    const name = fc
      .array(fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_-]{0,15}$/), { minLength: 1, maxLength: 4 })
      .map((parts) => parts.join('/'));
    fc.assert(fc.property(name, (ref) => checkRef(ref) === ref));
    for (const bad of ['-x', '--upload-pack=x', 'main~1', 'main^', '@{-1}', ':/text', 'a..b', 'a b', 'a\nb', '.hidden', 'x.lock', '']) {
      expect(refused(() => checkRef(bad))).toBe(true);
    }
    for (const bad of ['', '/abs', 'a/../b', './a', 'a//b', 'a\nb']) expect(refused(() => checkPath(bad, false))).toBe(true);
    expect(checkPath('', true)).toBe('');
    expect(checkPath('skills/', true)).toBe('skills');
  });
});
