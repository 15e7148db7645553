import { describe, expect, it } from 'vitest';
import type { ArtifactRecord } from '../artifacts/records.js';
import type { ArtifactQuota } from '../store/artifacts.js';
import type { Store } from '../store/store.js';
import { newId } from '../util/ids.js';
import { makeRun } from './fixtures.js';

const QUOTA: ArtifactQuota = { maxCount: 3, maxBytes: 100 };

const pullRequest = (runId: string, teamUid: string, n: number): ArtifactRecord => ({
  uid: newId(),
  runId,
  teamUid,
  createdAt: `2026-01-01T00:00:0${n}.000Z`,
  item: {
    artifact_type: 'PULL_REQUEST',
    created_at: `2026-01-01T00:00:0${n}.000Z`,
    data: { url: `https://example.com/pr/${n}`, branch: `b${n}` },
  },
  blob: null,
});

const file = (runId: string, teamUid: string, sizeBytes: number): ArtifactRecord => {
  const uid = newId();
  return {
    uid,
    runId,
    teamUid,
    createdAt: '2026-01-01T00:00:09.000Z',
    item: {
      artifact_type: 'FILE',
      created_at: '2026-01-01T00:00:09.000Z',
      data: { artifact_uid: uid, filename: 'a.txt', filepath: 'out/a.txt', mime_type: 'text/plain', size_bytes: sizeBytes },
    },
    blob: { key: `${teamUid}/${runId}/${uid}`, contentType: 'text/plain', sizeBytes },
  };
};

/** The artifacts part of the store conformance suite (docs/stores.md, "Artifacts"). */
export function describeArtifactsConformance(current: () => Store): void {
  describe('artifacts', () => {
    const created = async (teamUid = 'team_a') => {
      const run = makeRun({ teamUid });
      await current().runs.create({ run, attachments: [] });
      return run;
    };

    it("appends to the run's artifacts in the order added, finds each by UID within its team, and leaves updated_at", async () => {
      const store = current();
      const run = await created();
      const a = pullRequest(run.id, run.teamUid, 1);
      const b = file(run.id, run.teamUid, 10);
      expect(await store.artifacts.add(a, QUOTA)).toBe('added');
      expect(await store.artifacts.add(b, QUOTA)).toBe('added');
      const after = await store.runs.get(run.id);
      expect(after?.artifacts).toEqual([a.item, b.item]);
      expect(after?.updatedAt).toBe(run.updatedAt);
      expect(await store.artifacts.get(b.uid, run.teamUid)).toEqual(b);
      expect(await store.artifacts.get(b.uid)).toEqual(b);
      expect(await store.artifacts.get(b.uid, 'team_other')).toBeUndefined();
      expect(await store.artifacts.get(newId())).toBeUndefined();
    });

    it('a new run has none; an artifact of an unknown run is not added', async () => {
      const store = current();
      const run = await created();
      expect((await store.runs.get(run.id))?.artifacts).toEqual([]);
      const orphan = pullRequest('run_missing', run.teamUid, 1);
      expect(await store.artifacts.add(orphan, QUOTA)).toBe('no_run');
      expect(await store.artifacts.get(orphan.uid)).toBeUndefined();
    });

    it('refuses, adding nothing, past the count or the bytes of the quota', async () => {
      const store = current();
      const run = await created();
      expect(await store.artifacts.usage(run.id)).toEqual({ count: 0, bytes: 0 });
      expect(await store.artifacts.add(file(run.id, run.teamUid, 60), QUOTA)).toBe('added');
      expect(await store.artifacts.usage(run.id)).toEqual({ count: 1, bytes: 60 });
      const big = file(run.id, run.teamUid, 41);
      expect(await store.artifacts.add(big, QUOTA)).toBe('limit');
      expect(await store.artifacts.get(big.uid)).toBeUndefined();
      expect(await store.artifacts.add(file(run.id, run.teamUid, 40), QUOTA)).toBe('added');
      const third = pullRequest(run.id, run.teamUid, 3);
      expect(await store.artifacts.add(third, QUOTA)).toBe('added');
      expect(await store.artifacts.add(pullRequest(run.id, run.teamUid, 4), QUOTA)).toBe('limit');
      expect((await store.runs.get(run.id))?.artifacts).toHaveLength(3);
      expect(await store.artifacts.usage(run.id)).toEqual({ count: 3, bytes: 100 });
      expect(await store.artifacts.usage('run_missing')).toEqual({ count: 0, bytes: 0 });
    });

    it('concurrent adds to one run never exceed the quota', async () => {
      const store = current();
      const run = await created();
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.artifacts.add(pullRequest(run.id, run.teamUid, i), QUOTA)),
      );
      expect(results.filter((r) => r === 'added')).toHaveLength(3);
      expect((await store.runs.get(run.id))?.artifacts).toHaveLength(3);
    });

    it('the artifact_type filter lists the runs holding one of that type', async () => {
      const store = current();
      const teamUid = `team_${newId()}`;
      const withPr = await created(teamUid);
      const withFile = await created(teamUid);
      await created(teamUid);
      await store.artifacts.add(pullRequest(withPr.id, teamUid, 1), QUOTA);
      await store.artifacts.add(file(withFile.id, teamUid, 5), QUOTA);
      const list = (artifactType: 'PULL_REQUEST' | 'FILE' | 'PLAN') =>
        store.runs
          .list({ teamUid, filter: { artifactType }, sortBy: 'created_at', order: 'asc', limit: 10 })
          .then((runs) => runs.map((r) => r.id));
      expect(await list('PULL_REQUEST')).toEqual([withPr.id]);
      expect(await list('FILE')).toEqual([withFile.id]);
      expect(await list('PLAN')).toEqual([]);
    });
  });
}
