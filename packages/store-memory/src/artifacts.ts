import type { AddArtifactResult, ArtifactQuota, ArtifactRecord, ArtifactStore } from '@agentrun/core/store';
import { copy as clone } from './copy.js';

/**
 * Artifacts in memory (docs/stores.md, "Artifacts"): records by UID and, per run, their count and
 * uploaded bytes for the quota. `add` is synchronous, so the check, the record and the run's
 * `artifacts` (runs.ts `appendArtifact`, with the callbacks' outbox: memory-store.ts) change in one step.
 */
export function createMemoryArtifacts(appendArtifact: (record: ArtifactRecord) => boolean): ArtifactStore {
  const byUid = new Map<string, ArtifactRecord>();
  const perRun = new Map<string, { count: number; bytes: number }>();
  return {
    async add(record: ArtifactRecord, quota: ArtifactQuota): Promise<AddArtifactResult> {
      const held = perRun.get(record.runId) ?? { count: 0, bytes: 0 };
      const bytes = held.bytes + (record.blob?.sizeBytes ?? 0);
      if (held.count + 1 > quota.maxCount || bytes > quota.maxBytes) return 'limit';
      if (byUid.has(record.uid)) throw new Error(`artifact ${record.uid} already exists`);
      if (!appendArtifact(record)) return 'no_run';
      byUid.set(record.uid, clone(record));
      perRun.set(record.runId, { count: held.count + 1, bytes });
      return 'added';
    },
    async usage(runId) {
      return { ...(perRun.get(runId) ?? { count: 0, bytes: 0 }) };
    },
    async get(uid, teamUid) {
      const record = byUid.get(uid);
      return record && (teamUid === undefined || record.teamUid === teamUid) ? clone(record) : undefined;
    },
  };
}
