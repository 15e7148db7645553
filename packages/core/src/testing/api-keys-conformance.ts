import { describe, expect, it } from 'vitest';
import type { Store } from '../store/store.js';
import { isoTime } from '../util/clock.js';

const T0 = Date.UTC(2026, 0, 1);
const at = (ms: number) => isoTime(T0 + ms);

/** The API-key part of the store conformance suite (see `describeStoreConformance`). */
export function describeApiKeysConformance(current: () => Store): void {
  describe('API keys', () => {
    it('finds a principal by key hash and refuses a duplicate hash', async () => {
      const store = current();
      const principal = { type: 'service_account' as const, uid: 'sa-1', team_uid: 'team-1', permissions: ['manage_factory'] };
      await store.apiKeys.create({ hash: 'a'.repeat(64), prefix: 'ar_abcde', principal, createdAt: at(0) });
      expect(await store.apiKeys.findByHash('a'.repeat(64))).toEqual({
        hash: 'a'.repeat(64),
        prefix: 'ar_abcde',
        principal,
        createdAt: at(0),
      });
      expect(await store.apiKeys.findByHash('b'.repeat(64))).toBeUndefined();
      await expect(store.apiKeys.create({ hash: 'a'.repeat(64), prefix: 'x', principal, createdAt: at(0) })).rejects.toThrow();
    });
  });
}
