import { defaultHmac, defaultSha256, nobleHmac } from '@agentrun/core/verify';
import { nodeHmac, nodeSha256 } from '@agentrun/node';
import { describe, expect, it } from 'vitest';

// `nodeHmac` and `nodeSha256` are core's own node:crypto ports, which core already uses by default
// on Node (docs/signatures.md, "Hashing"); that both halves agree is tested in
// packages/core/test/crypto.test.ts.
describe('nodeHmac and nodeSha256', () => {
  it("are core's defaults, on node:crypto", () => {
    expect(nodeHmac).toBe(defaultHmac);
    expect(nodeSha256).toBe(defaultSha256);
    expect(nodeHmac.implementation).toBe('node:crypto');
    expect(nodeSha256.implementation).toBe('node:crypto');
  });

  it('give the same bytes as the portable port on a 256 KB body', async () => {
    const key = new TextEncoder().encode('Jefe');
    const big = new Uint8Array(262_144).map((_, i) => (i * 31) & 0xff);
    expect(Buffer.from(await nodeHmac.hmacSha256(key, big))).toEqual(Buffer.from(await nobleHmac.hmacSha256(key, big)));
  });
});
