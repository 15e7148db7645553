import { describe, expect, it } from 'vitest';
import type { SecretPosition } from '../store/control-plane.js';
import type { Store } from '../store/store.js';
import { makeSecret } from './control-plane-conformance.js';

// The two secret-store operations the key rotation uses (maintenance/reseal-secrets.ts): a walk
// over every team's secrets in pages, and a compare-and-set of one sealed value.

export function describeSecretResealConformance(store: () => Store): void {
  describe('secrets: scan and reseal (key rotation)', () => {
    it('walks every team’s secrets once, in pages, in (team, name) order', async () => {
      const s = store().secrets;
      const made = ['team-b', 'team-a', 'team-c'].flatMap((teamUid) =>
        ['z', 'a', 'm', 'b'].map((name) => makeSecret({ teamUid, name: `${name}-secret` })),
      );
      for (const record of made) await s.put(record);
      const seen: SecretPosition[] = [];
      let after: SecretPosition | undefined;
      for (let pages = 0; pages < 20; pages++) {
        const page = await s.scan(after, 5);
        expect(page.length).toBeLessThanOrEqual(5);
        seen.push(...page.map((r) => ({ teamUid: r.teamUid, name: r.name })));
        const last = page.at(-1);
        if (!last || page.length < 5) break;
        after = { teamUid: last.teamUid, name: last.name };
      }
      const expected = made
        .map((r) => ({ teamUid: r.teamUid, name: r.name }))
        .sort((a, b) => (a.teamUid !== b.teamUid ? (a.teamUid < b.teamUid ? -1 : 1) : a.name < b.name ? -1 : 1));
      expect(seen).toEqual(expected);
      expect(await s.scan({ teamUid: 'team-c', name: 'z-secret' }, 5)).toEqual([]);
    });

    it('a page carries the whole record', async () => {
      const s = store().secrets;
      const record = makeSecret({ teamUid: 'team-1', name: 'only', ciphertext: 'v2.k.iv.body' });
      await s.put(record);
      expect(await s.scan(undefined, 10)).toEqual([record]);
    });

    it('reseal replaces the ciphertext only while it is the expected one, keeping the timestamps', async () => {
      const s = store().secrets;
      const record = makeSecret({ teamUid: 'team-1', name: 'hook', ciphertext: 'v1.old' });
      await s.put(record);
      expect(await s.reseal('team-1', 'hook', 'v1.other', 'v2.new')).toBe(false);
      expect((await s.get('team-1', 'hook'))?.ciphertext).toBe('v1.old');
      expect(await s.reseal('team-1', 'hook', 'v1.old', 'v2.new')).toBe(true);
      expect(await s.get('team-1', 'hook')).toEqual({ ...record, ciphertext: 'v2.new' });
      // A second re-sealer that read the old value loses, and changes nothing.
      expect(await s.reseal('team-1', 'hook', 'v1.old', 'v2.newer')).toBe(false);
      expect((await s.get('team-1', 'hook'))?.ciphertext).toBe('v2.new');
    });

    it('reseal of a deleted or absent secret is refused and creates nothing', async () => {
      const s = store().secrets;
      expect(await s.reseal('team-1', 'ghost', 'v1.old', 'v2.new')).toBe(false);
      expect(await s.get('team-1', 'ghost')).toBeUndefined();
      await s.put(makeSecret({ teamUid: 'team-1', name: 'gone', ciphertext: 'v1.old' }));
      await s.delete('team-1', 'gone');
      expect(await s.reseal('team-1', 'gone', 'v1.old', 'v2.new')).toBe(false);
      expect(await s.get('team-1', 'gone')).toBeUndefined();
    });

    it('of concurrent reseals from the same value, exactly one wins', async () => {
      const s = store().secrets;
      await s.put(makeSecret({ teamUid: 'team-1', name: 'raced', ciphertext: 'v1.old' }));
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => s.reseal('team-1', 'raced', 'v1.old', `v2.new-${i}`)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await s.get('team-1', 'raced'))?.ciphertext).toBe(`v2.new-${results.indexOf(true)}`);
    });
  });
}
