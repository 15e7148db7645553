import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { RepositoryError } from '@agentrun/core';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { checkRepositoryUrl } from '../src/index.js';
import { checkPath, checkRef } from '../src/names.js';
import { removeTempDirs, tempDir } from './support/repositories.js';

afterAll(removeTempDirs);

const refusedNow = (check: () => unknown): boolean => {
  try {
    check();
    return false;
  } catch (error) {
    return error instanceof RepositoryError && error.code === 'invalid';
  }
};
const refused = (checked: Promise<unknown>): Promise<boolean> =>
  checked.then(
    () => false,
    (error: unknown) => error instanceof RepositoryError && error.code === 'invalid',
  );
const LOCAL = { allowLocalPaths: true };

const host = fc.domain();
const segment = fc.stringMatching(/^[A-Za-z0-9._-]{1,20}$/).filter((part) => part !== '.' && part !== '..');
const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'));

describe('checkRepositoryUrl', () => {
  it('accepts https:// and http://, and file:// and absolute paths where local paths are allowed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('https', 'http'), host, path, async (scheme, name, rest) => {
        expect(await checkRepositoryUrl(`${scheme}://${name}/${rest}`)).toBe(`${scheme}://${name}/${rest}`);
      }),
    );
    await fc.assert(
      fc.asyncProperty(path, async (rest) => {
        expect(await checkRepositoryUrl(`/${rest}`, LOCAL)).toBe(`/${rest}`);
        expect(await checkRepositoryUrl(`file:///${rest}`, LOCAL)).toBe(`file:///${rest}`);
      }),
    );
  });

  it('refuses file:// and absolute paths unless local paths are allowed', async () => {
    await fc.assert(
      fc.asyncProperty(path, async (rest) => {
        expect(await refused(checkRepositoryUrl(`/${rest}`))).toBe(true);
        expect(await refused(checkRepositoryUrl(`file:///${rest}`, { allowLocalPaths: false }))).toBe(true);
      }),
    );
    await expect(checkRepositoryUrl('/srv/git/a.git')).rejects.toThrow(/local paths are off \(allowLocalPaths\)/);
  });

  it('refuses a path into the cache, written out or through a symbolic link, even where local paths are allowed', async () => {
    const cacheDir = tempDir('cache');
    const entry = join(cacheDir, `${'a'.repeat(40)}.git`);
    mkdirSync(entry);
    const outside = tempDir('links');
    symlinkSync(entry, join(outside, 'to-entry.git'));
    symlinkSync(cacheDir, join(outside, 'to-cache'));
    // A link to an entry not made yet: git would follow it once the entry exists.
    symlinkSync(join(cacheDir, 'later.git'), join(outside, 'dangling.git'));
    symlinkSync(join(outside, 'dangling.git'), join(outside, 'chained.git'));
    const policy = { allowLocalPaths: true, cacheDir };
    for (const url of [
      entry,
      `file://${entry}`,
      cacheDir,
      `${cacheDir}/`,
      `${cacheDir}/./${'a'.repeat(40)}.git`,
      join(cacheDir, 'not-made-yet.git'),
      join(outside, 'to-entry.git'),
      join(outside, 'to-entry'), // git tries `<path>.git` too
      `file://${join(outside, 'to-cache', `${'a'.repeat(40)}.git`)}`,
      join(outside, 'to-cache', 'missing', 'deeper.git'),
      join(outside, 'dangling.git'),
      `file://${join(outside, 'chained.git')}`,
      join(outside, 'chained'),
    ]) {
      await expect(checkRepositoryUrl(url, policy), url).rejects.toThrow(/a path into the server's git cache/);
    }
    // Beside the cache, and a name that only starts like it, are other places.
    expect(await checkRepositoryUrl(join(outside, 'plain.git'), policy)).toBe(join(outside, 'plain.git'));
    expect(await checkRepositoryUrl(`${cacheDir}-other/x.git`, policy)).toBe(`${cacheDir}-other/x.git`);
    // A file:// URL is read by git as written: no escapes to hide a path behind.
    expect(await refused(checkRepositoryUrl(`file://${entry.replace(/\.git$/, '%2Egit')}`, policy))).toBe(true);
    expect(await refused(checkRepositoryUrl(`file://localhost${entry}`, policy))).toBe(true);
  });

  it('refuses every other transport, scp-like and relative names', async () => {
    const scheme = fc.stringMatching(/^[a-z][a-z0-9+.-]{0,10}$/).filter((name) => !['https', 'http', 'file'].includes(name));
    await fc.assert(
      fc.asyncProperty(scheme, host, path, (name, where, rest) => refused(checkRepositoryUrl(`${name}://${where}/${rest}`, LOCAL))),
    );
    await fc.assert(fc.asyncProperty(path, (rest) => refused(checkRepositoryUrl(`ext::sh -c ${rest}`, LOCAL))));
    await fc.assert(fc.asyncProperty(host, path, (where, rest) => refused(checkRepositoryUrl(`git@${where}:${rest}`, LOCAL))));
    await fc.assert(fc.asyncProperty(path, (rest) => refused(checkRepositoryUrl(rest, LOCAL))));
    expect(await refused(checkRepositoryUrl('fd::17', LOCAL))).toBe(true);
    expect(await refused(checkRepositoryUrl('', LOCAL))).toBe(true);
  });

  it('refuses a credential in the URL, a control character or space anywhere, and `..` in a path', async () => {
    await fc.assert(
      fc.asyncProperty(host, path, fc.stringMatching(/^[A-Za-z0-9]{6,20}$/), fc.boolean(), async (where, rest, secret, withUser) => {
        const userinfo = withUser ? `user:${secret}` : secret;
        const url = `https://${userinfo}@${where}/${rest}`;
        const error = await checkRepositoryUrl(url).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(error).toBeInstanceOf(RepositoryError);
        // Nor does the refusal tell the secret.
        expect((error as Error).message).toMatch(/\[redacted\]@/);
        // (The secret as a whole may recur in the generated host or path; what stood before the `@` may not.)
        expect((error as Error).message).not.toContain(`${userinfo}@`);
      }),
    );
    const control = fc.integer({ min: 0, max: 0x20 }).map((code) => String.fromCharCode(code));
    await fc.assert(
      fc.asyncProperty(host, path, control, fc.nat({ max: 30 }), (where, rest, bad, at) => {
        const url = `https://${where}/${rest}`;
        const cut = Math.min(at, url.length);
        return refused(checkRepositoryUrl(`${url.slice(0, cut)}${bad}${url.slice(cut)}`, LOCAL));
      }),
    );
    expect(await refused(checkRepositoryUrl('/srv/git/../etc', LOCAL))).toBe(true);
    expect(await refused(checkRepositoryUrl('file:///srv/git/../etc', LOCAL))).toBe(true);
  });
});

describe('refs and paths', () => {
  it('accepts branch-like names and refuses options, revision expressions and newlines', () => {
    const name = fc
      .array(fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_-]{0,15}$/), { minLength: 1, maxLength: 4 })
      .map((parts) => parts.join('/'));
    fc.assert(fc.property(name, (ref) => checkRef(ref) === ref));
    for (const bad of ['-x', '--upload-pack=x', 'main~1', 'main^', '@{-1}', ':/text', 'a..b', 'a b', 'a\nb', '.hidden', 'x.lock', '']) {
      expect(refusedNow(() => checkRef(bad))).toBe(true);
    }
    for (const bad of ['', '/abs', 'a/../b', './a', 'a//b', 'a\nb']) expect(refusedNow(() => checkPath(bad, false))).toBe(true);
    expect(checkPath('', true)).toBe('');
    expect(checkPath('skills/', true)).toBe('skills');
  });
});
