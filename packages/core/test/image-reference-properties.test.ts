import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ImageReference, parseImageReference } from '../src/environments/image-reference.js';

/**
 * Properties of the image-reference check (environments/image-reference.ts; docs/repositories.md,
 * "Container image and limits"): it is a parser of text a user writes, so it is checked on
 * references generated from the grammar (each one accepted and taken apart into the parts it was
 * built from) and on the same references broken in one place (each one refused).
 */

const alnum = fc.stringMatching(/^[a-z0-9]{1,6}$/);
const separator = fc.constantFrom('.', '_', '__', '-', '--');
const pathComponent = fc
  .tuple(alnum, fc.array(fc.tuple(separator, alnum), { maxLength: 3 }))
  .map(([head, rest]) => head + rest.map(([s, a]) => s + a).join(''));
const path = fc.array(pathComponent, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'));
const hostLabel = fc.stringMatching(/^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,6}[a-zA-Z0-9])?$/);
const port = fc.integer({ min: 1, max: 65535 }).map((p) => `:${p}`);
/** A first part that engines take as a registry: it has a `.` or a port, or is `localhost`. */
const registry = fc.oneof(
  fc.tuple(fc.constant('localhost'), fc.option(port, { nil: '' })).map(([h, p]) => h + p),
  fc.tuple(hostLabel, hostLabel, fc.option(port, { nil: '' })).map(([a, b, p]) => `${a}.${b}${p}`),
  fc.tuple(hostLabel, port).map(([h, p]) => h + p),
);
const tag = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,20}$/);
const digest = fc.stringMatching(/^[a-f0-9]{64}$/).map((hex) => `sha256:${hex}`);

/** Without a registry, a first path part with a `.` (or `localhost`) would be read as one, as engines read it. */
const readsAsRegistry = (r: ImageReference) => {
  const [first, ...rest] = r.path.split('/');
  return r.registry === undefined && rest.length > 0 && (first?.includes('.') || first === 'localhost');
};
const reference: fc.Arbitrary<ImageReference> = fc
  .record({ registry, path, tag, digest }, { requiredKeys: ['path'] })
  .filter((r) => !readsAsRegistry(r));
const text = (r: ImageReference) =>
  `${r.registry !== undefined ? `${r.registry}/` : ''}${r.path}${r.tag !== undefined ? `:${r.tag}` : ''}${r.digest !== undefined ? `@${r.digest}` : ''}`;

/** Characters no part of a reference may hold. */
const foreign = fc.constantFrom(' ', '!', '#', '$', '%', '&', '*', '+', ',', '?', '\\', '"', "'", '(', '~', '=', '\n', 'é');

/** One way to break a reference, given the reference. */
const broken: fc.Arbitrary<string> = fc.oneof(
  // A foreign character anywhere.
  fc.tuple(reference, foreign, fc.nat()).map(([r, c, at]) => {
    const t = text(r);
    const i = at % (t.length + 1);
    return t.slice(0, i) + c + t.slice(i);
  }),
  // An uppercase letter in the last part of the repository path (never taken for a registry).
  fc
    .tuple(
      reference.filter((r) => /[a-z]/.test(r.path.split('/').pop() ?? '')),
      fc.nat(),
    )
    .map(([r, n]) => {
      const parts = r.path.split('/');
      const last = parts.pop() ?? '';
      const letters = [...last.matchAll(/[a-z]/g)].map((m) => m.index ?? 0);
      const i = letters[n % letters.length] ?? 0;
      return text({ ...r, path: [...parts, last.slice(0, i) + last.charAt(i).toUpperCase() + last.slice(i + 1)].join('/') });
    }),
  // A path part that starts or ends with a separator, or is empty.
  fc
    .tuple(reference, fc.constantFrom('.', '_', '-', '/'), fc.boolean())
    .map(([r, s, atEnd]) => text({ ...r, path: atEnd ? `${r.path}${s}` : `${s}${r.path}` })),
  // An empty tag, or one that starts with . or -.
  fc.tuple(reference, fc.constantFrom('', '.', '-'), tag).map(([r, lead, t]) => text({ ...r, tag: lead === '' ? '' : lead + t })),
  // A tag over 128 characters.
  fc.tuple(reference, fc.integer({ min: 129, max: 200 })).map(([r, n]) => text({ ...r, tag: 'a'.repeat(n) })),
  // A digest of another algorithm, length or case.
  fc
    .tuple(
      reference,
      fc.stringMatching(/^[a-f0-9]{64}$/),
      fc.constantFrom('sha512:', 'sha256:', 'sha256', ''),
      fc.integer({ min: 0, max: 2 }),
    )
    .map(([r, hex, algorithm, how]) => {
      const body = how === 0 ? hex.slice(1) : how === 1 ? `${hex}0` : `${hex.slice(0, 63)}A`;
      return text({ ...r, digest: algorithm === 'sha256:' ? algorithm + body : algorithm + hex });
    }),
  // A registry host with an empty label or a label starting with -.
  fc.tuple(reference, hostLabel, fc.constantFrom('..', '.-', '-.')).map(([r, h, bad]) => text({ ...r, registry: `${h}${bad}${h}.io` })),
  // Longer than 255 characters.
  fc.tuple(reference, fc.integer({ min: 256, max: 400 })).map(([r, n]) => text({ ...r, path: `${r.path}/${'a'.repeat(n)}` })),
);

describe('image references', () => {
  it('accepts every reference the grammar makes, and takes it apart into the parts it was made of', () => {
    fc.assert(
      fc.property(reference, (r) => {
        fc.pre(text(r).length <= 255);
        const parsed = parseImageReference(text(r));
        expect(parsed).toEqual({ ok: true, reference: r });
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a reference broken in any one place, with a sentence saying why', () => {
    fc.assert(
      fc.property(broken, (t) => {
        const parsed = parseImageReference(t);
        expect(parsed.ok, t).toBe(false);
        if (!parsed.ok) expect(parsed.problem.length).toBeGreaterThan(10);
      }),
      { numRuns: 1000 },
    );
  });

  it('takes the first part for a registry as engines do', () => {
    expect(parseImageReference('busybox')).toEqual({ ok: true, reference: { path: 'busybox' } });
    expect(parseImageReference('acme/agent:2')).toEqual({ ok: true, reference: { path: 'acme/agent', tag: '2' } });
    expect(parseImageReference('localhost/agentrun-busybox:1')).toEqual({
      ok: true,
      reference: { registry: 'localhost', path: 'agentrun-busybox', tag: '1' },
    });
    expect(parseImageReference('ghcr.io/acme/agent:2')).toEqual({
      ok: true,
      reference: { registry: 'ghcr.io', path: 'acme/agent', tag: '2' },
    });
    expect(parseImageReference('Registry/agent')).toEqual({ ok: true, reference: { registry: 'Registry', path: 'agent' } });
    expect(parseImageReference('localhost:5000')).toEqual({ ok: true, reference: { path: 'localhost', tag: '5000' } });
    expect(parseImageReference('')).toEqual({ ok: false, problem: 'must not be empty' });
  });
});
