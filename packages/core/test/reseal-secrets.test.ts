import { createMemoryStore } from '@agentrun/store-memory';
import { describe, expect, it } from 'vitest';
import { createApiKey } from '../src/auth/api-keys.js';
import { callbackSecretSlot } from '../src/callbacks/records.js';
import { createSecretCipher, secretSlot } from '../src/control/secret-cipher.js';
import { createAgentRun } from '../src/index.js';
import { resealSecrets } from '../src/maintenance/reseal-secrets.js';

// maintenance.resealSecrets (maintenance/reseal-secrets.ts): every secret ends on the sealing key,
// values unchanged; a stopped walk resumes; racing walks and writes lose nothing.

const OLD = new Uint8Array(32).fill(1);
const NEW = new Uint8Array(32).fill(2);
const OTHER = new Uint8Array(32).fill(3);
const at = '2026-01-01T00:00:00.000Z';

async function storeWith(count: number, key: Uint8Array, teams = 3) {
  const store = createMemoryStore();
  const cipher = createSecretCipher(key);
  const values = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    const teamUid = `team-${i % teams}`;
    const name = `s-${String(i).padStart(3, '0')}`;
    const value = `value-${i}`;
    values.set(secretSlot(teamUid, name), value);
    await store.secrets.put({
      teamUid,
      name,
      ciphertext: await cipher.seal(value, secretSlot(teamUid, name)),
      createdAt: at,
      updatedAt: at,
    });
  }
  return { store, values };
}

async function expectAllOn(store: ReturnType<typeof createMemoryStore>, values: Map<string, string>, key: Uint8Array) {
  const only = createSecretCipher(key);
  const all = await store.secrets.scan(undefined, 10_000);
  expect(all).toHaveLength(values.size);
  for (const s of all) {
    expect(await only.isCurrent(s.ciphertext)).toBe(true);
    expect(await only.open(s.ciphertext, secretSlot(s.teamUid, s.name))).toBe(values.get(secretSlot(s.teamUid, s.name)));
    expect(s.updatedAt).toBe(at);
  }
}

describe('resealSecrets', () => {
  it('re-seals every secret with the first key, keeping values and timestamps; a second run finds all current', async () => {
    const { store, values } = await storeWith(25, OLD);
    const agentrun = createAgentRun({ store, secretKey: [NEW, OLD] });
    const first = await agentrun.maintenance.resealSecrets({ batchSize: 7 });
    expect(first).toEqual({
      sealingKeyId: (await createSecretCipher(NEW).keyIds())[0],
      scanned: 25,
      resealed: 25,
      current: 0,
      changed: 0,
      unopenable: [],
    });
    await expectAllOn(store, values, NEW);
    expect(await agentrun.maintenance.resealSecrets()).toMatchObject({ scanned: 25, resealed: 0, current: 25 });
  });

  it('stops after a page when aborted and resumes from `next`', async () => {
    const { store, values } = await storeWith(20, OLD);
    const cipher = createSecretCipher([NEW, OLD]);
    const stop = new AbortController();
    const pages: number[] = [];
    const partial = await resealSecrets(store.secrets, cipher, {
      batchSize: 6,
      signal: stop.signal,
      onPage: (r) => {
        pages.push(r.scanned);
        if (r.scanned >= 12) stop.abort();
      },
    });
    expect(pages).toEqual([6, 12]);
    expect(partial).toMatchObject({ scanned: 12, resealed: 12, next: expect.any(Object) });
    const rest = await resealSecrets(store.secrets, cipher, { batchSize: 6, ...(partial.next ? { after: partial.next } : {}) });
    expect(rest).toMatchObject({ scanned: 8, resealed: 8 });
    expect(rest.next).toBeUndefined();
    await expectAllOn(store, values, NEW);
  });

  it('names (never shows) a secret no held key opens, and goes on with the rest', async () => {
    const { store, values } = await storeWith(5, OLD, 1);
    const foreign = createSecretCipher(OTHER);
    await store.secrets.put({
      teamUid: 'team-0',
      name: 'stray',
      ciphertext: await foreign.seal('hidden-value', 'team-0/stray'),
      createdAt: at,
      updatedAt: at,
    });
    const report = await resealSecrets(store.secrets, createSecretCipher([NEW, OLD]));
    expect(report).toMatchObject({ scanned: 6, resealed: 5, unopenable: [{ teamUid: 'team-0', name: 'stray' }] });
    expect(JSON.stringify(report)).not.toContain('hidden-value');
    await store.secrets.delete('team-0', 'stray');
    await expectAllOn(store, values, NEW);
  });

  it('several walks at once, with writes between them: each secret re-sealed once, no write lost', async () => {
    const { store, values } = await storeWith(60, OLD);
    const cipher = createSecretCipher([NEW, OLD]);
    const writer = createSecretCipher([NEW, OLD]);
    // A write made while the walks run (sealed by its writer with the new key) must survive them.
    const write = async (i: number) => {
      const teamUid = `team-${i % 3}`;
      const name = `s-${String(i).padStart(3, '0')}`;
      const value = `rewritten-${i}`;
      values.set(secretSlot(teamUid, name), value);
      await store.secrets.put({
        teamUid,
        name,
        ciphertext: await writer.seal(value, secretSlot(teamUid, name)),
        createdAt: at,
        updatedAt: at,
      });
    };
    const reports = await Promise.all([
      resealSecrets(store.secrets, cipher, { batchSize: 5 }),
      resealSecrets(store.secrets, cipher, { batchSize: 7 }),
      resealSecrets(store.secrets, cipher, { batchSize: 60 }),
      ...[3, 17, 31, 44, 59].map(write),
    ]);
    const walks = reports.filter((r) => r !== undefined);
    for (const r of walks) expect(r.resealed + r.current + r.changed).toBe(r.scanned);
    expect(walks.reduce((sum, r) => sum + r.resealed, 0)).toBeLessThanOrEqual(60);
    await expectAllOn(store, values, NEW);
  });

  it('without a secret key, answers 503 and touches nothing', async () => {
    const { store } = await storeWith(2, OLD);
    const before = await store.secrets.scan(undefined, 10);
    await expect(createAgentRun({ store }).maintenance.resealSecrets()).rejects.toMatchObject({ code: 'unavailable' });
    await expect(resealSecrets(store.secrets, createSecretCipher(NEW), { batchSize: 0 })).rejects.toThrow(TypeError);
    expect(await store.secrets.scan(undefined, 10)).toEqual(before);
  });
});

describe('resealCallbackSecrets', () => {
  it('re-seals every callback signing secret with the first key, and callbacks still sign with the same secret', async () => {
    const store = createMemoryStore();
    const before = createAgentRun({ store, secretKey: OLD, maintenanceTasks: [] });
    const principal = { type: 'user' as const, uid: 'u', display_name: 'U', team_uid: 'team-1', permissions: ['manage_factory' as const] };
    const key = await createApiKey(store.apiKeys, principal);
    const secrets: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await before.fetch(
        new Request('http://agentrun.test/api/v1/callbacks', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url: `https://h${i}.example.com` }),
        }),
      );
      secrets.push(((await res.json()) as { secret: string }).secret);
    }
    const after = createAgentRun({ store, secretKey: [NEW, OLD], maintenanceTasks: [] });
    expect(await after.maintenance.resealCallbackSecrets({ batchSize: 2 })).toEqual({
      scanned: 3,
      resealed: 3,
      current: 0,
      changed: 0,
      unopenable: [],
    });
    const onlyNew = createSecretCipher(NEW);
    const endpoints = await store.callbacks.scanEndpoints(undefined, 10);
    const opened = await Promise.all(endpoints.map((e) => onlyNew.open(e.secretCiphertext, callbackSecretSlot(e.teamUid, e.id))));
    expect(opened.sort()).toEqual([...secrets].sort());
    expect(await after.maintenance.resealCallbackSecrets()).toMatchObject({ scanned: 3, resealed: 0, current: 3 });
    const stranger = createAgentRun({ store, secretKey: OTHER, maintenanceTasks: [] });
    expect((await stranger.maintenance.resealCallbackSecrets()).unopenable).toHaveLength(3);
  });
});
