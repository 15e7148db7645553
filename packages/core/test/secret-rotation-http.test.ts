import { describe, expect, it } from 'vitest';
import { createSecretCipher } from '../src/control/secret-cipher.js';
import { expectProblem, setup } from './helpers.js';

// The HTTP surface of a process mid-rotation (docs/operations.md, "Rotating the secret key"): a kept
// answer that shows a secret (a created webhook, replayed for its Idempotency-Key) replays while the
// process holds the key that sealed it, and is a 409, not a 500, once that key was removed; a
// secret sealed with a key the process lacks is a 503 naming that key's id.

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

  it('a team secret sealed with a key this process lacks: 503 naming the key id, never a 500 or the value', async () => {
    const first = await setup({ secretKey: OLD });
    const factory = (await first.json<{ uid: string }>('POST', '/factories', { body: { name: 'Acme' } })).body.uid;
    expect((await first.call('PUT', '/team/secrets/shared', { body: { value: 'shared-value-1' } })).status).toBe(201);
    const lacking = await setup({ store: first.store, clock: first.clock, secretKey: NEW });
    const res = await lacking.call('POST', `/factories/${factory}/webhooks`, {
      body: { name: 'CI', auth_mode: 'token', secret_name: 'shared' },
      key: first.key,
    });
    const text = await res.clone().text();
    await expectProblem(res, 503, 'unavailable');
    const [oldId] = await createSecretCipher(OLD).keyIds();
    expect(text).toContain(oldId);
    expect(text).not.toContain('shared-value-1');
    // With both keys it works.
    const both = await setup({ store: first.store, clock: first.clock, secretKey: [NEW, OLD] });
    const ok = await both.call('POST', `/factories/${factory}/webhooks`, {
      body: { name: 'CI', auth_mode: 'token', secret_name: 'shared' },
      key: first.key,
    });
    expect(ok.status).toBe(201);
  });

  it('a process holding only the old key refuses deliveries to a webhook sealed with the new one (401) and tells onError the key id, never the secret', async () => {
    const rotated = await setup({ secretKey: [NEW, OLD] });
    const factory = (await rotated.json<{ uid: string }>('POST', '/factories', { body: { name: 'Acme' } })).body.uid;
    const made = await rotated.json<{ webhook: { uid: string }; secret: string }>('POST', `/factories/${factory}/webhooks`, {
      body: { name: 'CI', auth_mode: 'token' },
    });
    const deliver = (h: typeof rotated) =>
      h.handler(
        new Request(`http://agentrun.test/webhooks/w/${made.body.webhook.uid}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${made.body.secret}` },
          body: '{}',
        }),
      );
    expect((await deliver(rotated)).status).toBe(202);
    const stale = await setup({ store: rotated.store, clock: rotated.clock, secretKey: OLD });
    expect((await deliver(stale)).status).toBe(401);
    const [newId] = await createSecretCipher(NEW).keyIds();
    expect(stale.errors.map(String).join('\n')).toContain(newId);
    expect(stale.errors.map(String).join('\n')).not.toContain(made.body.secret);
    // Given the new key, the same process accepts it again at once.
    const fixed = await setup({ store: rotated.store, clock: rotated.clock, secretKey: [NEW, OLD] });
    expect((await deliver(fixed)).status).toBe(202);
  });
});
