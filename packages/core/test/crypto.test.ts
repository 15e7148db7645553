import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import * as nobleHalf from '../src/crypto/noble.js';
import * as nodeHalf from '../src/crypto/node.js';
import { resolveDeliveryIdentity } from '../src/ingress/identity.js';
import { sha256Hex } from '../src/util/hash.js';
import { defaultHmac, defaultSha256, nobleHmac, nobleSha256 } from '../src/verify/crypto.js';

// Core's one hashing path (docs/signatures.md, "Hashing"): `#crypto` is node:crypto under Node's
// `node` condition (as here, under Vitest on Node) and @noble/hashes elsewhere; both halves must
// give the same bytes for every input.

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const utf8 = (text: string) => new TextEncoder().encode(text);

describe('the default ports', () => {
  it('are node:crypto when resolved under Node', () => {
    expect(defaultHmac.implementation).toBe('node:crypto');
    expect(defaultSha256.implementation).toBe('node:crypto');
    expect(defaultHmac).toBe(nodeHalf.hmacPort);
    expect(defaultSha256).toBe(nodeHalf.sha256Port);
  });

  it('leave the portable ones available under their own names', () => {
    expect(nobleHmac).toBe(nobleHalf.hmacPort);
    expect(nobleSha256).toBe(nobleHalf.sha256Port);
    expect(nobleHmac.implementation).toBe('noble');
    expect(nobleSha256.implementation).toBe('noble');
  });

  it('are what sha256Hex (API keys, idempotency fingerprints) hashes with', () => {
    const spy = vi.spyOn(defaultSha256, 'sha256Text');
    try {
      expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
      expect(spy).toHaveBeenCalledWith('abc');
    } finally {
      spy.mockRestore();
    }
  });

  it('are the only way core reaches a Node built-in: no other source file imports node:', () => {
    const src = fileURLToPath(new URL('../src/', import.meta.url));
    const importers = (readdirSync(src, { recursive: true }) as string[])
      .filter((file) => file.endsWith('.ts'))
      .filter((file) => /\bfrom\s+['"]node:|\bimport\(\s*['"]node:|\brequire\(\s*['"]node:/.test(readFileSync(`${src}${file}`, 'utf8')));
    expect(importers).toEqual(['crypto/node.ts']);
  });
});

describe('node:crypto and @noble/hashes agree', () => {
  it('on HMAC-SHA256 for random keys and messages, including empty and over-block-size keys', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), fc.uint8Array({ maxLength: 4096 }), async (key, data) => {
        const node = await nodeHalf.hmacPort.hmacSha256(key, data);
        expect(node).toBeInstanceOf(Uint8Array);
        expect(hex(node)).toBe(hex(await nobleHalf.hmacPort.hmacSha256(key, data)));
      }),
      { numRuns: 300 },
    );
  });

  it('on RFC 4231 test case 2 and a 256 KB body', async () => {
    const key = utf8('Jefe');
    const data = utf8('what do ya want for nothing?');
    const expected = '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843';
    expect(hex(await nodeHalf.hmacPort.hmacSha256(key, data))).toBe(expected);
    expect(hex(await nobleHalf.hmacPort.hmacSha256(key, data))).toBe(expected);
    const big = new Uint8Array(262_144).map((_, i) => (i * 31) & 0xff);
    expect(hex(await nodeHalf.hmacPort.hmacSha256(key, big))).toBe(hex(await nobleHalf.hmacPort.hmacSha256(key, big)));
  });

  it('on SHA-256 for random messages', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), (data) => {
        const node = nodeHalf.sha256Port.sha256(data);
        expect(node).toBeInstanceOf(Uint8Array);
        expect(hex(node)).toBe(hex(nobleHalf.sha256Port.sha256(data)));
      }),
      { numRuns: 300 },
    );
  });

  it("on SHA-256 of text: node's one step equals the hex of @noble over the UTF-8 (lone surrogates included)", () => {
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 300 }));
    fc.assert(
      fc.property(text, (t) => {
        expect(nodeHalf.sha256Port.sha256Text?.(t)).toBe(hex(nobleHalf.sha256Port.sha256(utf8(t))));
      }),
      { numRuns: 500 },
    );
    expect(nodeHalf.sha256Port.sha256Text?.('\ud800x')).toBe(hex(nobleHalf.sha256Port.sha256(utf8('\ud800x'))));
  });

  it('on the body-hash delivery identity', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (body) => {
        const input = { headers: new Headers(), configuredHeader: null, providerDeliveryId: undefined, body };
        expect(resolveDeliveryIdentity({ ...input, sha256: nodeHalf.sha256Port })).toEqual(
          resolveDeliveryIdentity({ ...input, sha256: nobleHalf.sha256Port }),
        );
      }),
      { numRuns: 200 },
    );
  });
});
