import { nobleHmac, nobleSha256, resolveDeliveryIdentity } from '@agentrun/core';
import { nodeHmac, nodeSha256 } from '@agentrun/node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/** The Node port must be a drop-in for core's portable default: same bytes for every key and message. */
describe('nodeHmac', () => {
  it('matches the @noble default on random keys and messages, including empty and over-block-size keys', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), fc.uint8Array({ maxLength: 4096 }), async (key, data) => {
        const node = await nodeHmac.hmacSha256(key, data);
        expect(node).toBeInstanceOf(Uint8Array);
        expect(Buffer.from(node).toString('hex')).toBe(Buffer.from(await nobleHmac.hmacSha256(key, data)).toString('hex'));
      }),
      { numRuns: 300 },
    );
  });

  it('matches RFC 4231 test case 2 and a 256 KB body', async () => {
    const key = new TextEncoder().encode('Jefe');
    const data = new TextEncoder().encode('what do ya want for nothing?');
    expect(Buffer.from(await nodeHmac.hmacSha256(key, data)).toString('hex')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
    const big = new Uint8Array(262_144).map((_, i) => (i * 31) & 0xff);
    expect(Buffer.from(await nodeHmac.hmacSha256(key, big))).toEqual(Buffer.from(await nobleHmac.hmacSha256(key, big)));
  });
});

describe('nodeSha256', () => {
  it('matches the @noble default on random messages', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), (data) => {
        const node = nodeSha256.sha256(data);
        expect(node).toBeInstanceOf(Uint8Array);
        expect(Buffer.from(node).toString('hex')).toBe(Buffer.from(nobleSha256.sha256(data)).toString('hex'));
      }),
      { numRuns: 300 },
    );
  });

  it('hashes text in one step exactly as the default hashes its UTF-8 (lone surrogates included)', () => {
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 300 }));
    fc.assert(
      fc.property(text, (t) => {
        expect(nodeSha256.sha256Text?.(t)).toBe(Buffer.from(nobleSha256.sha256(new TextEncoder().encode(t))).toString('hex'));
      }),
      { numRuns: 500 },
    );
    expect(nodeSha256.sha256Text?.('\ud800x')).toBe(Buffer.from(nobleSha256.sha256(new TextEncoder().encode('\ud800x'))).toString('hex'));
  });

  it('gives the same body-hash identity as the default', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (body) => {
        const input = { headers: new Headers(), configuredHeader: null, providerDeliveryId: undefined, body };
        expect(resolveDeliveryIdentity({ ...input, sha256: nodeSha256 })).toEqual(resolveDeliveryIdentity(input));
      }),
      { numRuns: 200 },
    );
  });
});
