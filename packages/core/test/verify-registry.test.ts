import { describe, expect, it } from 'vitest';
import { SIGNATURE_SCHEMES } from '../src/control/schemas.js';
import { constantTimeEqual } from '../src/verify/constant-time.js';
import type { HmacPort } from '../src/verify/crypto.js';
import { decodeBase64, decodeHex } from '../src/verify/encoding.js';
import { BUILTIN_VERIFIERS, builtinVerifiers, createVerifierRegistry, verifierFor } from '../src/verify/registry.js';
import { defineVerifier, header, unverified, type VerifyInput, verified } from '../src/verify/verifier.js';
import { CASES, enc } from './support/signers.js';

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const input = (headers: Record<string, string>, secret: string | undefined = 's'): VerifyInput => ({
  body: enc('{}'),
  headers: new Headers(headers),
  secret,
  now: NOW,
});

describe('verifier registry', () => {
  it('has one built-in verifier per scheme of the control plane, named after it', () => {
    expect(Object.keys(BUILTIN_VERIFIERS).sort()).toEqual([...SIGNATURE_SCHEMES].sort());
    for (const scheme of SIGNATURE_SCHEMES) expect(verifierFor(scheme).scheme).toBe(scheme);
    expect(createVerifierRegistry().schemes).toEqual(SIGNATURE_SCHEMES);
  });

  it('plugs in a new scheme and can replace a built-in, without touching the others', async () => {
    const custom = defineVerifier('acme', ({ headers, secret }) =>
      header(headers, 'x-acme-key') === secret ? verified(header(headers, 'x-acme-delivery')) : unverified('bad key'),
    );
    const alwaysNo = defineVerifier('github', () => unverified('disabled'));
    const registry = createVerifierRegistry([...builtinVerifiers(), custom, alwaysNo]);
    expect(registry.schemes).toEqual([...SIGNATURE_SCHEMES.filter((s) => s !== 'github'), 'acme', 'github']);
    expect(await registry.verify('acme', input({ 'x-acme-key': 's', 'x-acme-delivery': 'a1' }))).toEqual({ ok: true, deliveryId: 'a1' });
    // defineVerifier fails closed on an unsupplied secret before the custom check runs.
    expect(await registry.verify('acme', { ...input({ 'x-acme-key': 's' }), secret: undefined })).toMatchObject({ ok: false });
    expect(await registry.verify('github', input({}))).toEqual({ ok: false, reason: 'disabled' });
    expect(registry.get('stripe')?.scheme).toBe('stripe');
  });

  it('fails closed on an unknown scheme', async () => {
    expect(await createVerifierRegistry().verify('nope', input({}))).toEqual({ ok: false, reason: 'unknown signature scheme' });
    expect(createVerifierRegistry().get('nope')).toBeUndefined();
    // A stored name the type system does not know still gets a verifier that refuses.
    expect(await verifierFor('nope' as 'github').verify(input({}))).toEqual({ ok: false, reason: 'unknown signature scheme' });
    expect(await verifierFor('toString' as 'github').verify(input({}))).toMatchObject({ ok: false });
  });

  it('turns a failing HMAC port into a rejection, never a throw', async () => {
    const broken: HmacPort = { hmacSha256: () => Promise.reject(new Error('engine down')) };
    const c = CASES.find((x) => x.scheme === 'github')!;
    const signed = c.sign(enc('{}'), 'k', NOW);
    expect(await verifierFor('github', broken).verify({ ...input(signed.headers, 'k'), body: signed.body })).toEqual({
      ok: false,
      reason: 'verification error',
    });
  });

  it('uses the HMAC port it is given, sync or async', async () => {
    const calls: number[] = [];
    const c = CASES.find((x) => x.scheme === 'sentry')!;
    const signed = c.sign(enc('{"a":1}'), 'k', NOW);
    const { nobleHmac } = await import('../src/verify/crypto.js');
    const asyncPort: HmacPort = {
      hmacSha256: async (key, data) => {
        calls.push(data.length);
        return nobleHmac.hmacSha256(key, data);
      },
    };
    expect((await verifierFor('sentry', asyncPort).verify({ ...input(signed.headers, 'k'), body: signed.body })).ok).toBe(true);
    expect(calls).toEqual([7]);
  });
});

describe('verify helpers', () => {
  it('constantTimeEqual compares length, then every byte', () => {
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 0]))).toBe(false);
    expect(constantTimeEqual(new Uint8Array(), new Uint8Array())).toBe(true);
  });

  it('decodeHex and decodeBase64 are strict and never throw', () => {
    expect(decodeHex('00ffAB')).toEqual(new Uint8Array([0, 255, 171]));
    for (const bad of ['0', 'zz', '0x00', ' 00', '00 ']) expect(decodeHex(bad)).toBeUndefined();
    expect(decodeBase64('AQID')).toEqual(new Uint8Array([1, 2, 3]));
    expect(decodeBase64('AQI=')).toEqual(new Uint8Array([1, 2]));
    expect(decodeBase64('AQI')).toEqual(new Uint8Array([1, 2]));
    for (const bad of ['A', 'AQ=I', 'AQ I', 'AQ-_', 'A===', '====']) expect(decodeBase64(bad)).toBeUndefined();
  });
});
