import { describe, expect, it } from 'vitest';
import type { FactorySourceRecord, SourceApplyRecord } from '../sources/records.js';
import { SOURCE_APPLIES_KEPT } from '../store/factory-sources.js';
import type { Store } from '../store/store.js';
import { newId } from '../util/ids.js';
import { makeAuditEvent } from './audit-conformance.js';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

const source = (o: Partial<FactorySourceRecord> = {}): FactorySourceRecord => ({
  teamUid: `team-${newId()}`,
  factoryUid: newId(),
  repository: 'acme/factory',
  branch: 'main',
  directory: 'agentrun',
  pushScheme: 'github',
  pushSecret: 'push-secret',
  createdAt: at(0),
  updatedAt: at(0),
  ...o,
});

const apply = (s: FactorySourceRecord, o: Partial<SourceApplyRecord> = {}): SourceApplyRecord => ({
  id: newId(),
  teamUid: s.teamUid,
  factoryUid: s.factoryUid,
  commit: 'a'.repeat(40),
  triggeredBy: 'poll',
  status: 'applying',
  errors: [],
  version: null,
  startedAt: at(10),
  finishedAt: null,
  ...o,
});

/** The factory sources part of the Store port (store/factory-sources.ts). */
export function describeFactorySourcesConformance(store: () => Store): void {
  describe('factory sources', () => {
    it('stores a source and reads it back field for field; a replace keeps createdAt', async () => {
      const s = source();
      await store().factorySources.put(s);
      expect(await store().factorySources.get(s.teamUid, s.factoryUid)).toEqual(s);
      expect(await store().factorySources.get(`team-${newId()}`, s.factoryUid)).toBeUndefined();
      expect(await store().factorySources.find(s.factoryUid)).toEqual(s);
      expect(await store().factorySources.find(newId())).toBeUndefined();
      const replaced = { ...s, branch: 'prod', directory: '', pushScheme: null, pushSecret: null, createdAt: at(5), updatedAt: at(5) };
      await store().factorySources.put(replaced);
      expect(await store().factorySources.get(s.teamUid, s.factoryUid)).toEqual({ ...replaced, createdAt: at(0) });
    });

    it('lists every team’s sources by factory UID after a position, in pages', async () => {
      const made = [
        source({ factoryUid: `zz-${newId()}` }),
        source({ factoryUid: `zz-${newId()}` }),
        source({ factoryUid: `zz-${newId()}` }),
      ];
      for (const s of made) await store().factorySources.put(s);
      const sorted = made.map((s) => s.factoryUid).sort();
      const first = await store().factorySources.list('zz-', 2);
      expect(first.map((s) => s.factoryUid)).toEqual(sorted.slice(0, 2));
      const next = await store().factorySources.list(first[1]?.factoryUid, 10);
      expect(next.map((s) => s.factoryUid).filter((u) => sorted.includes(u))).toEqual(sorted.slice(2));
    });

    it('claims each commit once: a second claim of it is done, whatever its outcome', async () => {
      const s = source();
      await store().factorySources.put(s);
      const first = apply(s);
      expect(await store().factorySources.claimApply(first, at(0))).toBe('claimed');
      expect(await store().factorySources.claimApply(apply(s), at(0))).toBe('done');
      expect(
        await store().factorySources.finishApply({
          id: first.id,
          status: 'failed',
          errors: [{ path: 'a.yaml', line: 3, message: 'bad' }],
          version: null,
          finishedAt: at(11),
        }),
      ).toBe(true);
      expect(await store().factorySources.claimApply(apply(s), at(0))).toBe('done');
      expect(await store().factorySources.listApplies(s.teamUid, s.factoryUid, { limit: 10 })).toEqual([
        { ...first, status: 'failed', errors: [{ path: 'a.yaml', line: 3, message: 'bad' }], finishedAt: at(11) },
      ]);
    });

    it('is busy while another commit is applying, and takes over a stale claim', async () => {
      const s = source();
      await store().factorySources.put(s);
      const first = apply(s, { startedAt: at(10) });
      await store().factorySources.claimApply(first, at(0));
      const other = apply(s, { commit: 'b'.repeat(40), startedAt: at(12) });
      expect(await store().factorySources.claimApply(other, at(5))).toBe('busy');
      // The first claim is older than the stale bound: its process is taken to have died.
      expect(await store().factorySources.claimApply(other, at(11))).toBe('claimed');
      const again = apply(s, { startedAt: at(20) });
      expect(await store().factorySources.claimApply({ ...again, commit: 'b'.repeat(40) }, at(11))).toBe('done');
      await store().factorySources.finishApply({ id: other.id, status: 'applied', errors: [], version: 3, finishedAt: at(13) });
      // The stale claim of the first commit is replaced by a new one.
      expect(await store().factorySources.claimApply(again, at(15))).toBe('claimed');
      expect(
        await store().factorySources.finishApply({ id: first.id, status: 'applied', errors: [], version: 1, finishedAt: at(21) }),
      ).toBe(false);
      const listed = await store().factorySources.listApplies(s.teamUid, s.factoryUid, { limit: 10 });
      expect(listed.map((a) => [a.id, a.status, a.version])).toEqual([
        [again.id, 'applying', null],
        [other.id, 'applied', 3],
      ]);
    });

    it('refuses as superseded a commit whose apply started before another apply of the factory (an older view of the branch)', async () => {
      const s = source();
      await store().factorySources.put(s);
      const newer = apply(s, { commit: 'b'.repeat(40), startedAt: at(20) });
      expect(await store().factorySources.claimApply(newer, at(0))).toBe('claimed');
      await store().factorySources.finishApply({ id: newer.id, status: 'applied', errors: [], version: 2, finishedAt: at(21) });
      const older = apply(s, { commit: 'a'.repeat(40), startedAt: at(15) });
      expect(await store().factorySources.claimApply(older, at(0))).toBe('superseded');
      expect((await store().factorySources.listApplies(s.teamUid, s.factoryUid, { limit: 10 })).map((a) => a.id)).toEqual([newer.id]);
      // One that started later is claimed.
      expect(await store().factorySources.claimApply({ ...older, startedAt: at(25) }, at(0))).toBe('claimed');
    });

    it('pages applies newest first and keeps the newest of them', async () => {
      const s = source();
      await store().factorySources.put(s);
      const made: SourceApplyRecord[] = [];
      for (let i = 0; i < SOURCE_APPLIES_KEPT + 2; i++) {
        const a = apply(s, { commit: i.toString(16).padStart(40, '0'), startedAt: at(i), status: 'applied', finishedAt: at(i) });
        made.push(a);
        expect(await store().factorySources.claimApply(a, at(0))).toBe('claimed');
      }
      const kept = made.slice(2).reverse();
      const page = await store().factorySources.listApplies(s.teamUid, s.factoryUid, { limit: 3 });
      expect(page.map((a) => a.id)).toEqual(kept.slice(0, 3).map((a) => a.id));
      const last = page[2] as SourceApplyRecord;
      const rest = await store().factorySources.listApplies(s.teamUid, s.factoryUid, { after: last, limit: 1000 });
      expect(rest.map((a) => a.id)).toEqual(kept.slice(3).map((a) => a.id));
      expect(await store().factorySources.listApplies(`team-${newId()}`, s.factoryUid, { limit: 10 })).toEqual([]);
    });

    it('deletes a source with its applies, and stores each write’s audit event with it', async () => {
      const s = source();
      const written = makeAuditEvent({ teamUid: s.teamUid, kind: 'source.written', targetType: 'source', targetId: s.factoryUid });
      await store().factorySources.put(s, written);
      const a = apply(s);
      await store().factorySources.claimApply(a, at(0));
      const failed = {
        ...makeAuditEvent({ teamUid: s.teamUid, kind: 'source.failed', targetType: 'source', targetId: s.factoryUid }),
        at: at(1),
      };
      await store().factorySources.finishApply({ id: a.id, status: 'failed', errors: [], version: null, finishedAt: at(11) }, failed);
      const deleted = {
        ...makeAuditEvent({ teamUid: s.teamUid, kind: 'source.deleted', targetType: 'source', targetId: s.factoryUid }),
        at: at(2),
      };
      expect(await store().factorySources.delete(`team-${newId()}`, s.factoryUid)).toBe(false);
      expect(await store().factorySources.delete(s.teamUid, s.factoryUid, deleted)).toBe(true);
      expect(await store().factorySources.delete(s.teamUid, s.factoryUid, makeAuditEvent({ teamUid: s.teamUid }))).toBe(false);
      expect(await store().factorySources.get(s.teamUid, s.factoryUid)).toBeUndefined();
      expect(await store().factorySources.listApplies(s.teamUid, s.factoryUid, { limit: 10 })).toEqual([]);
      // A claim for a source that is gone claims nothing.
      expect(await store().factorySources.claimApply(apply(s, { commit: 'c'.repeat(40) }), at(0))).toBe('done');
      expect((await store().audit.list(s.teamUid, { limit: 10 })).map((e) => e.id)).toEqual([deleted.id, failed.id, written.id]);
    });
  });
}
