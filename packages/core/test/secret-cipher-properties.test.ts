import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSecretCipher, missingCipher, secretSlot } from '../src/control/secret-cipher.js';

// The sealed format (control/secret-cipher.ts; docs/operations.md, "Rotating the secret key"):
// round trip, tampering refused, a key that did not seal refused, the old key-less format opened.

const keyArb = fc.uint8Array({ minLength: 32, maxLength: 32 });
const twoKeys = fc.tuple(keyArb, keyArb).filter(([a, b]) => Buffer.compare(a, b) !== 0);
const slotArb = fc.tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 })).map(([t, n]) => secretSlot(t, n));
const valueArb = fc.string({ unit: 'binary', maxLength: 200 });
const b64u = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** What seal wrote before key ids (the code of `v1`, kept here to make old values). */
async function sealV1(key: Uint8Array, plaintext: string, slot: string): Promise<string> {
  const k = await crypto.subtle.importKey('raw', key as Uint8Array<ArrayBuffer>, 'AES-GCM', false, ['encrypt']);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const body = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: new TextEncoder().encode(slot) },
    k,
    new TextEncoder().encode(plaintext),
  );
  return `v1.${b64u(iv)}.${b64u(new Uint8Array(body))}`;
}

const runs = { numRuns: 40 };

describe('sealed secrets', () => {
  it('round trip: what one cipher seals, it opens, and names its sealing key', async () => {
    await fc.assert(
      fc.asyncProperty(keyArb, slotArb, valueArb, async (key, slot, value) => {
        const cipher = createSecretCipher(key);
        const sealed = await cipher.seal(value, slot);
        const [id] = await cipher.keyIds();
        expect(sealed.startsWith(`v2.${id}.`)).toBe(true);
        if (value.length >= 8) expect(sealed).not.toContain(value);
        expect(await cipher.open(sealed, slot)).toBe(value);
        expect(await cipher.isCurrent(sealed)).toBe(true);
      }),
      runs,
    );
  });

  it('a key id is derived from the key alone: the same in every cipher holding it, distinct between keys', async () => {
    await fc.assert(
      fc.asyncProperty(twoKeys, async ([a, b]) => {
        const [idA] = await createSecretCipher(a).keyIds();
        expect(await createSecretCipher(Buffer.from(a).toString('base64')).keyIds()).toEqual([idA]);
        expect(await createSecretCipher([b, a]).keyIds()).toEqual([(await createSecretCipher(b).keyIds())[0], idA]);
        expect(idA).toMatch(/^[\w-]{8}$/);
        expect(idA).not.toBe((await createSecretCipher(b).keyIds())[0]);
      }),
      runs,
    );
  });

  it('with several keys the first seals and every one opens; a value sealed by a key not held is refused', async () => {
    await fc.assert(
      fc.asyncProperty(twoKeys, slotArb, valueArb, async ([oldKey, newKey], slot, value) => {
        const old = createSecretCipher(oldKey);
        const both = createSecretCipher([newKey, oldKey]);
        const fresh = createSecretCipher(newKey);
        const sealedOld = await old.seal(value, slot);
        expect(await both.open(sealedOld, slot)).toBe(value);
        expect(await both.isCurrent(sealedOld)).toBe(false);
        const sealedNew = await both.seal(value, slot);
        expect(await both.isCurrent(sealedNew)).toBe(true);
        expect(await fresh.open(sealedNew, slot)).toBe(value);
        // The old key alone cannot open what the new key sealed, and says which key it lacks.
        await expect(old.open(sealedNew, slot)).rejects.toThrow((await fresh.keyIds())[0]);
        await expect(fresh.open(sealedOld, slot)).rejects.toThrow();
      }),
      runs,
    );
  });

  it('the old format (no key id) opens with whichever held key sealed it, and with no other', async () => {
    await fc.assert(
      fc.asyncProperty(twoKeys, slotArb, valueArb, fc.boolean(), async ([a, b], slot, value, sealedByFirst) => {
        const sealer = sealedByFirst ? a : b;
        const v1 = await sealV1(sealer, value, slot);
        const both = createSecretCipher([a, b]);
        expect(await both.open(v1, slot)).toBe(value);
        expect(await both.isCurrent(v1)).toBe(false);
        await expect(createSecretCipher(sealedByFirst ? b : a).open(v1, slot)).rejects.toThrow();
      }),
      runs,
    );
  });

  it('tampering is refused: any changed character, another slot, or a swapped key id', async () => {
    await fc.assert(
      fc.asyncProperty(twoKeys, slotArb, slotArb, valueArb, fc.nat(), fc.nat(63), async ([a, b], slot, otherSlot, value, at, bits) => {
        const cipher = createSecretCipher([a, b]);
        const sealed = await cipher.seal(value, slot);
        const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
        const i = at % sealed.length;
        const replacement = alphabet[(alphabet.indexOf(sealed[i] ?? 'A') + 1 + bits) % alphabet.length] ?? 'A';
        const tampered = sealed.slice(0, i) + replacement + sealed.slice(i + 1);
        if (tampered !== sealed) {
          // A change in base64url padding bits can decode to the same bytes: then the value is the same.
          const opened = await cipher.open(tampered, slot).then(
            (v) => v,
            () => undefined,
          );
          if (opened !== undefined) expect(opened).toBe(value);
          else await expect(cipher.open(tampered, slot)).rejects.toThrow();
        }
        if (otherSlot !== slot) await expect(cipher.open(sealed, otherSlot)).rejects.toThrow();
        const [, idB] = await cipher.keyIds();
        const swapped = sealed.replace(/^v2\.[^.]+\./, `v2.${idB}.`);
        await expect(cipher.open(swapped, slot)).rejects.toThrow();
      }),
      runs,
    );
  });

  it('malformed values are refused, never opened', async () => {
    const cipher = createSecretCipher(new Uint8Array(32).fill(1));
    for (const bad of ['', 'v1', 'v2', 'v1.a', 'v2.k.a', 'v3.a.b', 'v2.k.a.b.c', 'v1.!!.x', 'v2.bad id.AAAAAAAAAAAAAAAA.AA']) {
      await expect(cipher.open(bad, 's')).rejects.toThrow();
    }
  });

  it('refuses an empty list and a key listed twice; without a key every use is 503', async () => {
    const key = new Uint8Array(32).fill(3);
    expect(() => createSecretCipher([])).toThrow(TypeError);
    expect(() => createSecretCipher([key, Buffer.from(key).toString('hex')])).toThrow(/twice/);
    expect(() => createSecretCipher([key, 'short'])).toThrow(/32 bytes/);
    await expect(missingCipher.seal('x', 's')).rejects.toMatchObject({ code: 'unavailable' });
    await expect(missingCipher.isCurrent('x')).rejects.toMatchObject({ code: 'unavailable' });
  });
});
