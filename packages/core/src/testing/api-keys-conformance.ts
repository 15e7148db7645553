import { describe, expect, it } from 'vitest';
import type { Store } from '../store/store.js';
import { isoTime } from '../util/clock.js';

const T0 = Date.UTC(2026, 0, 1);
const at = (ms: number) => isoTime(T0 + ms);
const principalOf = (team: string) => ({ type: 'service_account' as const, uid: `sa-${team}`, team_uid: team });
const hash = (c: string) => c.repeat(64);

/** The API-key part of the store conformance suite (see `describeStoreConformance`). */
export function describeApiKeysConformance(current: () => Store): void {
  describe('API keys', () => {
    it('finds a principal by key hash and refuses a duplicate hash; a key minted in code gets defaults', async () => {
      const store = current();
      const principal = { ...principalOf('team-1'), permissions: ['manage_factory'] };
      await store.apiKeys.create({ hash: hash('a'), prefix: 'ar_abcde', principal, createdAt: at(0) });
      const found = await store.apiKeys.findByHash(hash('a'));
      expect(found).toEqual({
        id: expect.any(String),
        hash: hash('a'),
        prefix: 'ar_abcde',
        name: '',
        principal,
        createdBy: null,
        scopes: null,
        createdAt: at(0),
        expiresAt: null,
        revokedAt: null,
        lastUsedAt: null,
      });
      expect(found?.id).not.toBe('');
      expect(await store.apiKeys.findByHash(hash('b'))).toBeUndefined();
      await expect(store.apiKeys.create({ hash: hash('a'), prefix: 'x', principal, createdAt: at(0) })).rejects.toThrow();
    });

    it('keeps every field of a key given them, and refuses a duplicate id', async () => {
      const store = current();
      const record = {
        id: 'key-1',
        hash: hash('c'),
        prefix: 'ar_ccccc',
        name: 'CI',
        principal: principalOf('team-1'),
        createdBy: { type: 'user' as const, uid: 'u-1', display_name: 'Ada' },
        scopes: ['read_runs', 'write_runs'],
        createdAt: at(1),
        expiresAt: at(86_400_000),
      };
      await store.apiKeys.create(record);
      expect(await store.apiKeys.findByHash(hash('c'))).toEqual({ ...record, revokedAt: null, lastUsedAt: null });
      await expect(store.apiKeys.create({ ...record, hash: hash('d') })).rejects.toThrow();
    });

    it("lists a team's live keys newest first, and revokes only a key of the caller's team", async () => {
      const store = current();
      for (const [id, team, ms] of [
        ['k1', 'team-1', 1],
        ['k2', 'team-1', 3],
        ['k3', 'team-2', 2],
        ['k4', 'team-1', 2],
      ] as const) {
        await store.apiKeys.create({ id, hash: hash(id.slice(1)), prefix: id, principal: principalOf(team), createdAt: at(ms) });
      }
      expect((await store.apiKeys.list('team-1')).map((k) => k.id)).toEqual(['k2', 'k4', 'k1']);
      expect(await store.apiKeys.revoke('team-2', 'k1', at(10))).toBeUndefined();
      expect(await store.apiKeys.revoke('team-1', 'nope', at(10))).toBeUndefined();
      const first = await store.apiKeys.revoke('team-1', 'k1', at(10));
      expect([first?.revoked, first?.record.id, first?.record.revokedAt]).toEqual([true, 'k1', at(10)]);
      // Revoked once: a second revoke changes nothing and keeps the first time.
      const second = await store.apiKeys.revoke('team-1', 'k1', at(20));
      expect([second?.revoked, second?.record.revokedAt]).toEqual([false, at(10)]);
      expect((await store.apiKeys.findByHash(hash('1')))?.revokedAt).toBe(at(10));
      expect((await store.apiKeys.list('team-1')).map((k) => k.id)).toEqual(['k2', 'k4']);
      expect((await store.apiKeys.list('team-2')).map((k) => k.id)).toEqual(['k3']);
    });

    it('records uses in a batch: the latest use wins, an unknown hash is ignored', async () => {
      const store = current();
      await store.apiKeys.create({ hash: hash('e'), prefix: 'e', principal: principalOf('team-1'), createdAt: at(0) });
      await store.apiKeys.create({ hash: hash('f'), prefix: 'f', principal: principalOf('team-1'), createdAt: at(0) });
      await store.apiKeys.touch([]);
      await store.apiKeys.touch([
        { hash: hash('e'), at: at(5) },
        { hash: hash('e'), at: at(7) },
        { hash: hash('e'), at: at(6) },
        { hash: hash('0'), at: at(5) },
      ]);
      expect((await store.apiKeys.findByHash(hash('e')))?.lastUsedAt).toBe(at(7));
      expect((await store.apiKeys.findByHash(hash('f')))?.lastUsedAt).toBeNull();
      // An older use arriving late (another process's flush) does not move it back.
      await store.apiKeys.touch([
        { hash: hash('e'), at: at(3) },
        { hash: hash('f'), at: at(4) },
      ]);
      expect((await store.apiKeys.findByHash(hash('e')))?.lastUsedAt).toBe(at(7));
      expect((await store.apiKeys.findByHash(hash('f')))?.lastUsedAt).toBe(at(4));
    });
  });
}
