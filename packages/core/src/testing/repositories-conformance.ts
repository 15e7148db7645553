import { describe, expect, it } from 'vitest';
import type { RepositoryRecord } from '../repositories/records.js';
import type { Store } from '../store/store.js';
import { newId } from '../util/ids.js';
import { makeAuditEvent } from './audit-conformance.js';

const repository = (o: Partial<RepositoryRecord> = {}): RepositoryRecord => ({
  teamUid: 'team-1',
  name: 'acme/skills',
  url: 'https://git.example.com/acme/skills.git',
  defaultBranch: 'main',
  credentialSecret: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  ...o,
});

/** The team repositories part of the Store port (store/repositories.ts). */
export function describeRepositoriesConformance(store: () => Store): void {
  describe('repositories', () => {
    it('stores a repository and reads it back, field for field', async () => {
      const team = `team-${newId()}`;
      const record = repository({ teamUid: team, credentialSecret: 'gh-read', createdAt: '2026-02-03T04:05:06.789Z' });
      expect(await store().repositories.create(record)).toBe(true);
      expect(await store().repositories.get(team, record.name)).toEqual(record);
      expect(await store().repositories.get(team, 'acme/other')).toBeUndefined();
    });

    it('refuses a second repository of the same name in a team, and keeps the first', async () => {
      const team = `team-${newId()}`;
      await store().repositories.create(repository({ teamUid: team }));
      expect(await store().repositories.create(repository({ teamUid: team, url: 'file:///elsewhere' }))).toBe(false);
      expect((await store().repositories.get(team, 'acme/skills'))?.url).toBe('https://git.example.com/acme/skills.git');
      // Another team may use the name.
      expect(await store().repositories.create(repository({ teamUid: `team-${newId()}` }))).toBe(true);
    });

    it("lists a team's repositories by name in code-unit order, and no other team's", async () => {
      const team = `team-${newId()}`;
      for (const name of ['acme/zeta', 'Acme/beta', 'acme/alpha']) await store().repositories.create(repository({ teamUid: team, name }));
      await store().repositories.create(repository({ teamUid: `team-${newId()}`, name: 'acme/other' }));
      expect((await store().repositories.list(team)).map((r) => r.name)).toEqual(['Acme/beta', 'acme/alpha', 'acme/zeta']);
    });

    it('deletes within the team only, and says whether it did', async () => {
      const team = `team-${newId()}`;
      await store().repositories.create(repository({ teamUid: team }));
      expect(await store().repositories.delete(`team-${newId()}`, 'acme/skills')).toBe(false);
      expect(await store().repositories.delete(team, 'acme/skills')).toBe(true);
      expect(await store().repositories.delete(team, 'acme/skills')).toBe(false);
      expect(await store().repositories.list(team)).toEqual([]);
    });

    it('stores a write’s audit event with the change, and none when nothing changed', async () => {
      const team = `team-${newId()}`;
      const event = (kind: 'repository.created' | 'repository.deleted') =>
        makeAuditEvent({ teamUid: team, kind, targetType: 'repository', targetId: 'acme/skills' });
      const created = event('repository.created');
      await store().repositories.create(repository({ teamUid: team }), created);
      await store().repositories.create(repository({ teamUid: team }), event('repository.created'));
      const deleted = { ...event('repository.deleted'), at: '2026-01-01T00:00:01.000Z' };
      await store().repositories.delete(team, 'acme/skills', deleted);
      await store().repositories.delete(team, 'acme/skills', event('repository.deleted'));
      expect((await store().audit.list(team, { limit: 10 })).map((e) => e.id)).toEqual([deleted.id, created.id]);
    });

    it('returns copies: changing an answer changes nothing stored', async () => {
      const team = `team-${newId()}`;
      await store().repositories.create(repository({ teamUid: team }));
      const got = (await store().repositories.get(team, 'acme/skills')) as RepositoryRecord;
      got.url = 'changed';
      expect((await store().repositories.get(team, 'acme/skills'))?.url).toBe('https://git.example.com/acme/skills.git');
    });
  });
}
