import { describe, expect, it } from 'vitest';
import { createSecretCipher } from '../src/control/secret-cipher.js';
import { expectProblem, setup } from './helpers.js';

// A kept answer that shows a secret (a created webhook, replayed for its Idempotency-Key) is sealed
// with the secret key: it replays while a process holds the key that sealed it, and is a 409, not a
// 500, once that key was removed (docs/operations.md, "Rotating the secret key").

const OLD = new Uint8Array(32).fill(5);
const NEW = new Uint8Array(32).fill(6);

describe('secret-key rotation and Idempotency-Key replays', () => {
  it('replays through [new, old] and through [old]; refuses with a 409 through [new] alone', async () => {
    const first = await setup({ secretKey: OLD });
    const factory = (await first.json<{ uid: string }>('POST', '/factories', { body: { name: 'Acme' } })).body.uid;
    const create = { body: { name: 'CI', auth_mode: 'token' }, headers: { 'idempotency-key': 'hook-1' } };
    const made = await first.json<{ secret: string }>('POST', `/factories/${factory}/webhooks`, create);
    expect(made.status).toBe(201);

    const sameStore = { store: first.store, clock: first.clock };
    for (const secretKey of [[NEW, OLD], OLD]) {
      const other = await setup({ ...sameStore, secretKey });
      const again = await other.json<{ secret: string }>('POST', `/factories/${factory}/webhooks`, { ...create, key: first.key });
      expect(again.status).toBe(201);
      expect(again.res.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.secret).toBe(made.body.secret);
    }
    const rotated = await setup({ ...sameStore, secretKey: NEW });
    await expectProblem(await rotated.call('POST', `/factories/${factory}/webhooks`, { ...create, key: first.key }), 409, 'conflict');
    expect(rotated.errors).toEqual([]);
    expect((await createSecretCipher(NEW).keyIds())[0]).not.toBe((await createSecretCipher(OLD).keyIds())[0]);
  });
});
